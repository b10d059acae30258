/**
 * The routing configuration's revisions, newest first, from its audit chain
 * (`GET /audit/export/gateway.routing`: one `routing.config.updated` event per
 * revision, with who stored it, why, the configuration's SHA-256 and the
 * revision a revert copied), and whether that chain verifies. The gateway has
 * no route listing stored configurations, so an older revision's content is
 * not shown; "Revert" stores it again as a new revision
 * (`POST /routing/config/revert`).
 */
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { AuditReceiptBundle, RoutingActor } from "./types.ts"

/** One revision as its audit event records it. */
interface Revision {
  readonly revision: number
  readonly at: string
  readonly sha256: string
  readonly reason: string | null
  readonly revertedFrom: number | null
  readonly by: RoutingActor | null
}

/** The revisions of the chain's `routing.config.updated` events, newest first (anonymized events are skipped). */
const revisionsOf = (bundle: AuditReceiptBundle): Array<Revision> =>
  bundle.events.flatMap((event) => {
    const a = event.action as Record<string, unknown> | null
    if (a === null || a.type !== "routing.config.updated" || typeof a.revision !== "number") return []
    return [{
      revision: a.revision,
      at: event.occurred_at,
      sha256: typeof a.config_sha256 === "string" ? a.config_sha256 : "",
      reason: typeof a.reason === "string" ? a.reason : null,
      revertedFrom: typeof a.reverted_from_revision === "number" ? a.reverted_from_revision : null,
      by: typeof a.created_by === "object" && a.created_by !== null ? (a.created_by as RoutingActor) : null
    }]
  }).reverse()

/** Who stored a revision, for a person. */
const actor = (by: RoutingActor | null): string =>
  by === null ? "—" : by.kind === "device" ? `device ${by.device_id ?? "?"}` : by.kind === "node" ? `node ${by.node_id ?? "?"}` : by.kind

/** The history table; `bundle` undefined means no revision was ever stored. `onReverted` reloads the page's data. */
export const History = (
  { bundle, inForce, onReverted }: { bundle: AuditReceiptBundle | undefined; inForce: number; onReverted: () => void }
) => {
  const action = useAction()
  const revisions = bundle === undefined ? [] : revisionsOf(bundle)

  const revert = (revision: number) =>
    action.run(async () => {
      const stored = await call((c) => c.routing.revert({ payload: { revision } }))
      onReverted()
      return `Revision ${revision} restored as revision ${stored.revision}.`
    })

  return (
    <section class="panel" aria-labelledby="routing-history-title">
      <h2 id="routing-history-title">History</h2>
      {bundle === undefined ? <p class="empty">No revision stored yet: the default configuration is in force.</p> : (
        <p class={bundle.chain_verification.valid ? "hint" : "error"}>
          {bundle.chain_verification.valid
            ? `Audit chain gateway.routing verified (${bundle.chain_verification.checked_count} events).`
            : `Audit chain gateway.routing is broken at event ${bundle.chain_verification.broken_at_id ?? "?"}: this history cannot be trusted.`}
        </p>
      )}
      {revisions.length > 0 ? (
        <table class="list" aria-label="Routing configuration revisions">
          <thead>
            <tr><th scope="col">Revision</th><th scope="col">Stored at</th><th scope="col">By</th><th scope="col">Reason</th><th scope="col">Config SHA-256</th><th scope="col"><span class="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {revisions.map((r) => (
              <tr key={r.revision}>
                <td>{r.revision}{r.revertedFrom !== null ? ` (revert of ${r.revertedFrom})` : ""}</td>
                <td><time dateTime={r.at}>{r.at}</time></td>
                <td>{actor(r.by)}</td>
                <td class="prompt">{r.reason ?? ""}</td>
                <td><code title={r.sha256}>{r.sha256.slice(0, 12)}</code></td>
                <td>
                  {r.revision === inForce ? <span>in force</span> : (
                    <button type="button" disabled={action.busy} onClick={() => revert(r.revision)}>Revert to revision {r.revision}</button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {action.done ? <p role="status" class="ok">{action.done}</p> : null}
      <ErrorNote error={action.error} />
    </section>
  )
}
