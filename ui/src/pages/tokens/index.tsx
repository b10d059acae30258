/**
 * Device tokens: issue one (shown once, with a Copy button) and revoke one by
 * pasting it. Both routes need the admin token itself, so a device-token
 * session (which sees this page only with operator.admin) gets the reason
 * instead of forms that would be refused.
 */
import { useState } from "preact/hooks"
import { usePrincipal } from "../../app/session.ts"
import { ADMIN_ONLY } from "./AdminOnlyError.tsx"
import { IssuedToken } from "./IssuedToken.tsx"
import { IssueToken } from "./IssueToken.tsx"
import { RevokeToken } from "./RevokeToken.tsx"
import type { DeviceTokenIssueResponse } from "./types.ts"

/** The device tokens page. */
export default function TokensPage() {
  const principal = usePrincipal()
  const [issued, setIssued] = useState<DeviceTokenIssueResponse | undefined>(undefined)
  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">Device tokens</h1>
      {principal.tokenKind === "device" ? <p class="error" role="note">{ADMIN_ONLY}</p> : principal.tokenKind === "open" ? (
        <p class="empty">Gateway authentication is off (<code>SVC_AUTH=off</code>): there are no device tokens to issue.</p>
      ) : (
        <>
          <p class="hint">
            A device token gives a program or another browser the scopes chosen here, bound to one device id. The
            gateway lists no tokens: keep the token id of each one you issue.
          </p>
          {issued ? <IssuedToken issued={issued} onDismiss={() => setIssued(undefined)} /> : null}
          <IssueToken onIssued={setIssued} />
          <RevokeToken />
        </>
      )}
    </section>
  )
}
