/**
 * Sign-in: the operator pastes the admin token (or a device token); the
 * console sends it once to `POST /auth/session`, which sets the HttpOnly
 * cookie, and forgets it (the field is cleared; nothing is written to
 * localStorage or shown again).
 */
import { ErrorNote } from "../components/ErrorNote.tsx"
import { type Principal, signIn } from "./session.ts"
import { useAction } from "./useAction.ts"

/** The sign-in form. */
export const SignIn = ({ onSignedIn }: { onSignedIn: (principal: Principal) => void }) => {
  const action = useAction()
  const submit = action.submit(async (form) => {
    const field = form.elements.namedItem("token") as HTMLInputElement
    const token = field.value.trim()
    field.value = ""
    if (token === "") throw new Error("Paste the admin token (or a device token).")
    onSignedIn(await signIn(token))
  })
  return (
    <main id="main" class="signin">
      <h1>svc-gateway console</h1>
      <form onSubmit={submit} aria-describedby="signin-help">
        <label for="token">Token</label>
        <input id="token" name="token" type="password" autoComplete="off" spellcheck={false} required />
        <p id="signin-help" class="hint">
          The admin token is in <code>~/.svc/admin-token</code> on the gateway's host. It is sent once and kept only in
          an HttpOnly cookie.
        </p>
        <button type="submit" disabled={action.busy}>{action.busy ? "Signing in…" : "Sign in"}</button>
        <ErrorNote error={action.error} />
      </form>
    </main>
  )
}
