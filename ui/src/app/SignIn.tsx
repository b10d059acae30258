/**
 * Sign-in: the operator pastes the admin token (or a device token); the
 * console sends it once to `POST /auth/session`, which sets the HttpOnly
 * cookie, and forgets it (the field is cleared; nothing is written to
 * localStorage or shown again).
 */
import { useState } from "preact/hooks"
import { explain } from "./api.ts"
import { type Principal, signIn } from "./session.ts"

/** The sign-in form. */
export const SignIn = ({ onSignedIn }: { onSignedIn: (principal: Principal) => void }) => {
  const [error, setError] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    const form = event.currentTarget as HTMLFormElement
    const field = form.elements.namedItem("token") as HTMLInputElement
    const token = field.value.trim()
    field.value = ""
    if (token === "") return setError("Paste the admin token (or a device token).")
    setBusy(true)
    setError(undefined)
    try {
      onSignedIn(await signIn(token))
    } catch (failure) {
      setError(explain(failure))
      setBusy(false)
    }
  }
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
        <button type="submit" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
        {error ? <p role="alert" class="error">{error}</p> : null}
      </form>
    </main>
  )
}
