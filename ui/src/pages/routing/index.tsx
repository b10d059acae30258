/**
 * Routing configuration (docs/routing.md): which agent answers a messenger
 * thread. The revision in force, its editor (JSON checked in the browser with
 * the gateway's own schema before it is sent) and its history with revert.
 * Live: `routing.config.updated` reloads the revision and the history.
 * operator.admin (every route of the page).
 */
import { ApiError, call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { AuditChains } from "../../../../services/domain-events/chains.ts"
import { Editor } from "./Editor.tsx"
import { History } from "./History.tsx"

const EVENTS = ["routing.config.updated"]

/** The routing chain's export, or undefined when no revision was ever stored (404: a chain without events). */
const loadHistory = () =>
  call((c) => c.audit.export({ params: { planId: AuditChains.routing } })).catch((failure: unknown) => {
    if (failure instanceof ApiError && failure.status === 404) return undefined
    throw failure
  })

/** The routing configuration page. */
export default function RoutingPage() {
  const current = useResource(() => call((c) => c.routing.get()), { events: EVENTS }, [])
  const history = useResource(loadHistory, { events: EVENTS }, [])
  const reload = () => {
    current.reload()
    history.reload()
  }
  const record = current.data
  return (
    <section aria-labelledby="routing-title">
      <h1 id="routing-title">Routing configuration</h1>
      <ErrorNote error={current.error} />
      {record ? (
        <>
          <dl class="facts">
            <dt>Revision in force</dt><dd>{record.revision === 0 ? "none stored (default configuration)" : record.revision}</dd>
            {record.created_at ? <><dt>Stored at</dt><dd>{record.created_at}</dd></> : null}
            {record.reason ? <><dt>Reason</dt><dd>{record.reason}</dd></> : null}
            {record.reverted_from_revision !== undefined ? <><dt>Copy of</dt><dd>revision {record.reverted_from_revision}</dd></> : null}
          </dl>
          <Editor current={record} onSaved={reload} />
          <ErrorNote error={history.error} />
          {history.loading && history.data === undefined && history.error === undefined ? null : (
            <History bundle={history.data} inForce={record.revision} onReverted={reload} />
          )}
        </>
      ) : current.loading ? <p aria-busy="true">Loading…</p> : null}
    </section>
  )
}
