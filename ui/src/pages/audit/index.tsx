/**
 * Audit (docs/audit.md): export a plan's hash chain (its policy check, plan,
 * approvals and runs) or a gateway-wide chain by id
 * (`GET /audit/export/:planId`), see its events, verify it
 * (`POST /audit/verify`) and download it. operator.admin. The chain id is in
 * the address (`/ui/audit?chain=<id>`: a query, as ids like `gateway.routing`
 * would read as a file name in the path), so an export can be linked to. Live: an
 * approval or run event reloads the export (a plan's chain grows with them).
 */
import { useDraft } from "../../app/useDraft.ts"
import { useLocation } from "preact-iso"
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Chain } from "./Chain.tsx"
import { AuditChains } from "./types.ts"

const EVENTS = ["approval.requested", "approval.resolved", "run.", "routing.config.updated", "pairing.", "policy_override."]

/** The audit page. */
export default function AuditPage() {
  const { query, route } = useLocation()
  const chain = query.chain === undefined || query.chain === "" ? undefined : query.chain
  const [typed, setTyped] = useDraft(chain ?? "")
  const exported = useResource(
    () => (chain === undefined ? Promise.resolve(undefined) : call((c) => c.audit.export({ params: { planId: chain } }))),
    { events: chain === undefined ? [] : EVENTS },
    [chain]
  )

  const submit = (event: Event) => {
    event.preventDefault()
    const id = typed.trim()
    if (id === "") return
    if (id === chain) exported.reload()
    else route(`/ui/audit?chain=${encodeURIComponent(id)}`)
  }

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit</h1>
      <form class="panel" onSubmit={submit} aria-labelledby="audit-export-title">
        <h2 id="audit-export-title">Export a chain</h2>
        <label>
          Plan id or chain{" "}
          <input value={typed} required list="audit-chains" autoComplete="off" spellcheck={false} onInput={(e) => setTyped((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <datalist id="audit-chains">
          {Object.values(AuditChains).map((id) => <option key={id} value={id} />)}
        </datalist>
        <p class="hint">A plan's chain holds its policy check, plan, approvals and runs; the gateway.* chains hold the decisions that belong to no plan.</p>
        <div class="actions">
          <button type="submit" class="primary">Export chain</button>
        </div>
      </form>
      <ErrorNote error={exported.error} />
      {exported.data !== undefined && exported.data.plan_id === chain ? <Chain bundle={exported.data} /> : null}
    </section>
  )
}
