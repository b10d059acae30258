/**
 * Revoking a device token (`POST /auth/device-tokens/revoke`): the gateway
 * keeps no list of tokens to choose from (only digests), so the operator
 * pastes the token. The field is write-only like every secret field: read
 * once on submit and cleared. The token is refused from then on, also on
 * open WebSocket connections; 404 for a token the gateway never issued.
 */
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { AdminOnlyError } from "./AdminOnlyError.tsx"

/** The revoke form. */
export const RevokeToken = () => {
  const action = useAction()
  const submit = action.submit(async (form) => {
    const field = form.elements.namedItem("revoke-token") as HTMLInputElement
    const token = field.value.trim()
    field.value = ""
    const answer = await call((c) => c.auth.revokeDeviceToken({ payload: { token } }))
    return `Device token ${answer.token_id} revoked.`
  })
  return (
    <section class="panel" aria-labelledby="revoke-title">
      <h2 id="revoke-title">Revoke a device token</h2>
      <form onSubmit={submit}>
        <label>
          Device token to revoke{" "}
          <input name="revoke-token" type="password" autoComplete="off" spellcheck={false} required aria-describedby="revoke-help" />
        </label>
        <p id="revoke-help" class="hint">Paste the token itself (<code>svc-device.v1.…</code>): the gateway keeps only digests, so it cannot list tokens.</p>
        <div class="actions"><button type="submit" class="danger" disabled={action.busy}>Revoke token</button></div>
      </form>
      {action.done ? <p role="status" class="ok">{action.done}</p> : null}
      <AdminOnlyError error={action.error} />
    </section>
  )
}
