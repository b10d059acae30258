/**
 * Issuing a device token (`POST /auth/device-tokens/issue`): the device id
 * it is bound to (this browser's own id is one click away: a console signed
 * in with a token for it connects live), its role (`client` for operator
 * programs, `node` for capability providers), its scopes (checkboxes, the
 * spec's five) and its lifetime (minutes, hours or days, at most 30 days;
 * default 15 minutes) or persistent (never expires).
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { useLiveState } from "../../app/useResource.ts"
import { SelectField } from "../../components/SelectField.tsx"
import { DEFAULT_DEVICE_TOKEN_TTL_SECONDS, KNOWN_SCOPES } from "../../../../services/auth/schema.ts"
import { DEVICE_ROLES } from "../../../../services/shared/principal.ts"
import { AdminOnlyError } from "./AdminOnlyError.tsx"
import type { DeviceRole, DeviceTokenIssueResponse, Scope } from "./types.ts"

const UNITS = { minutes: 60, hours: 3600, days: 86_400 } as const
type Unit = keyof typeof UNITS

/** The issue form; `onIssued` gets the answer (the token inside it is shown once by the page). */
export const IssueToken = ({ onIssued }: { onIssued: (issued: DeviceTokenIssueResponse) => void }) => {
  const live = useLiveState()
  const [deviceId, setDeviceId] = useState("")
  const [role, setRole] = useState<DeviceRole>("client")
  const [scopes, setScopes] = useState<ReadonlySet<Scope>>(new Set(["operator.read"]))
  const [amount, setAmount] = useState(String(DEFAULT_DEVICE_TOKEN_TTL_SECONDS / 60))
  const [unit, setUnit] = useState<Unit>("minutes")
  const [persistent, setPersistent] = useState(false)
  const action = useAction()

  const toggle = (scope: Scope, on: boolean) => {
    const next = new Set(scopes)
    if (on) next.add(scope)
    else next.delete(scope)
    setScopes(next)
  }
  const submit = action.submit(async () => {
    const answer = await call((c) =>
      c.auth.issueDeviceToken({
        payload: {
          device_id: deviceId.trim(),
          role,
          scopes: KNOWN_SCOPES.filter((s) => scopes.has(s)),
          ...(persistent ? { persistent: true } : { ttl_seconds: Math.round(Number(amount) * UNITS[unit]) })
        }
      })
    )
    onIssued(answer)
  })

  return (
    <section class="panel" aria-labelledby="issue-title">
      <h2 id="issue-title">Issue a device token</h2>
      <form onSubmit={submit}>
        <label>
          Device id{" "}
          <input value={deviceId} required maxLength={128} spellcheck={false} placeholder="ops-laptop" onInput={(e) => setDeviceId((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {live.deviceId ? (
          <p class="hint">
            This browser's device id is <code>{live.deviceId}</code>.{" "}
            <button type="button" onClick={() => setDeviceId(live.deviceId ?? "")}>Use this browser's device id</button>
          </p>
        ) : null}
        <SelectField label="Role" value={role} options={DEVICE_ROLES} onChange={setRole} />
        <fieldset>
          <legend>Scopes</legend>
          {KNOWN_SCOPES.map((scope) => (
            <label key={scope} class="inline">
              <input type="checkbox" checked={scopes.has(scope)} onChange={(e) => toggle(scope, (e.currentTarget as HTMLInputElement).checked)} /> {scope}
            </label>
          ))}
        </fieldset>
        <fieldset>
          <legend>Lifetime</legend>
          <label class="inline">
            <input type="checkbox" checked={persistent} onChange={(e) => setPersistent((e.currentTarget as HTMLInputElement).checked)} /> Never expires (persistent)
          </label>
          <label class="inline">
            Expires after{" "}
            <input type="number" min={1} step="any" value={amount} disabled={persistent} required={!persistent} size={6} onInput={(e) => setAmount((e.currentTarget as HTMLInputElement).value)} />
          </label>
          <SelectField inline label="Unit" value={unit} disabled={persistent} options={Object.keys(UNITS) as Array<Unit>} onChange={setUnit} />
          <p class="hint">At most 30 days.</p>
        </fieldset>
        <div class="actions"><button type="submit" class="primary" disabled={action.busy}>Issue token</button></div>
      </form>
      <AdminOnlyError error={action.error} />
    </section>
  )
}
