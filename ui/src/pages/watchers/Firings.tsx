/**
 * The firings of one watcher, newest first (`GET /watchers/:id/firings`,
 * operator.read): what fired it (periodic slot, webhook nonce digest or the
 * run whose end fired it), its status, the run it started, and why starting
 * it failed. Live: `watcher.fired` reloads it.
 */
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { WatcherFiring } from "./types.ts"

/** What set a firing off, for a person. */
const cause = (firing: WatcherFiring): string =>
  firing.slot !== null
    ? `slot ${new Date(firing.slot).toISOString()}`
    : firing.nonce_digest !== null
    ? `webhook nonce ${firing.nonce_digest.slice(0, 12)}…`
    : firing.source_run_id !== null
    ? `run ${firing.source_run_id}`
    : "—"

/** The firings panel of watcher `id` (its route `/ui/watchers/<id>`). */
export const Firings = ({ id }: { id: string }) => {
  const firings = useResource(
    () => call((c) => c.watchers.firings({ params: { id }, query: {} })),
    { events: ["watcher.fired"] },
    [id]
  )
  const list = firings.data?.firings ?? []
  return (
    <section class="panel" aria-labelledby="firings-title">
      <h2 id="firings-title">Firings of watcher {id}</h2>
      <p><a href="/ui/watchers">Close</a></p>
      <ErrorNote error={firings.error} />
      {firings.data && list.length === 0 ? <p class="empty">No firings yet.</p> : null}
      {list.length > 0 ? (
        <table class="list" aria-label={`Firings of watcher ${id}`}>
          <thead>
            <tr><th scope="col">Fired at</th><th scope="col">Cause</th><th scope="col">Status</th><th scope="col">Run</th><th scope="col">Error</th></tr>
          </thead>
          <tbody>
            {list.map((f) => (
              <tr key={f.firing_id}>
                <td><time dateTime={f.created_at}>{f.created_at}</time></td>
                <td>{cause(f)}</td>
                <td>{f.status}</td>
                <td>{f.run_id ? <a href={`/ui/runs/${f.run_id}`}>{f.run_id}</a> : "—"}</td>
                <td class="prompt">{f.error ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
