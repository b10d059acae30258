/**
 * Revoking a device token (`POST /auth/device-tokens/revoke`): the gateway
 * keeps no list of tokens to choose from (only digests), so the operator
 * pastes the token. The field is write-only like every secret field: read
 * once on submit and cleared. The token is refused from then on, also on
 * open WebSocket connections; 404 for a token the gateway never issued.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { AdminOnlyError } from "./AdminOnlyError.tsx"

/** The revoke form. */
export const RevokeToken = () => {
  const [error, setError] = useState<unknown>(undefined)
  const [done, setDone] = useState<string | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const submit = async (event: Event) => {
    event.preventDefault()
    const field = (event.currentTarget as HTMLFormElement).elements.namedItem("revoke-token") as HTMLInputElement
    const token = field.value.trim()
    field.value = ""
    setBusy(true)
    setError(undefined)
    setDone(undefined)
    try {
      const answer = await call((c) => c.auth.revokeDeviceToken({ payload: { token } }))
      setDone(`Device token ${answer.token_id} revoked.`)
    } catch (failure) {
      setError(failure)
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="panel" aria-labelledby="revoke-title">
      <h2 id="revoke-title">Revoke a device token</h2>
      <form onSubmit={submit}>
        <label>
          Device token to revoke{" "}
          <input name="revoke-token" type="password" autoComplete="off" spellcheck={false} required aria-describedby="revoke-help" />
        </label>
        <p id="revoke-help" class="hint">Paste the token itself (<code>svc-device.v1.…</code>): the gateway keeps only digests, so it cannot list tokens.</p>
        <div class="actions"><button type="submit" class="danger" disabled={busy}>Revoke token</button></div>
      </form>
      {done ? <p role="status" class="ok">{done}</p> : null}
      <AdminOnlyError error={error} />
    </section>
  )
}
