/**
 * A failed device-token call, explained. These routes take the admin token
 * itself: a device token gets 403 `admin token required` even with
 * operator.admin, which the generic explanation ("lacks the scope") would
 * misstate, so a 403 here says to sign in with the admin token.
 */
import { ApiError } from "../../app/api.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"

/** Why device tokens cannot use this page (shown up front to a device-token session, and for a 403). */
export const ADMIN_ONLY =
  "Issuing and revoking device tokens needs the admin token itself: a device token is refused (403 admin token required), " +
  "even one with operator.admin. Sign out and sign in with the admin token to manage device tokens."

/** `error` as an alert; a 403 as {@link ADMIN_ONLY} with the gateway's words. */
export const AdminOnlyError = ({ error }: { error: unknown }) =>
  error instanceof ApiError && error.status === 403
    ? <p role="alert" class="error">{ADMIN_ONLY} (The gateway answered 403 {error.error}: {error.message}.)</p>
    : <ErrorNote error={error} />
