/**
 * Watchers (docs/watchers.md): every watcher, paused ones included
 * (`GET /watchers?state=all`), with its trigger and settings; create one,
 * pause or resume it (`PATCH /watchers/:id`; operator.write, hidden
 * without), and the firings of one at `/ui/watchers/<id>`. Live:
 * `watcher.fired` reloads the firings; there is no event for a watcher
 * created or paused elsewhere, so the list reloads after this page's own
 * actions (and polls while the live connection is down). Listed for
 * operator.admin like every Admin page (a device token without it sees no
 * admin page), though the routes need only operator.read (list, firings) and
 * operator.write (create, pause: those buttons are hidden without it).
 */
import { useLocation } from "preact-iso"
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useAction } from "../../app/useAction.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { CreateForm } from "./CreateForm.tsx"
import { Firings } from "./Firings.tsx"
import type { Watcher } from "./types.ts"

/** A watcher's trigger settings, for a person. */
const settings = (watcher: Watcher): string => {
  const c = watcher.trigger_config ?? {}
  return [
    typeof c.interval_ms === "number" ? `every ${c.interval_ms} ms` : "",
    typeof c.secret_handle === "string" ? `secret ${c.secret_handle}` : "",
    typeof c.playbook_id === "string" ? `runs playbook ${c.playbook_id}` : "",
    Array.isArray(c.steps) ? `runs ${c.steps.length} step(s)` : ""
  ].filter((part) => part !== "").join("; ") || "—"
}

/** The watcher id of `/ui/watchers/<id>`, if any. */
const selectedId = (path: string): string | undefined => {
  const rest = path.replace(/^\/ui\/watchers\/?/, "")
  return rest === "" ? undefined : decodeURIComponent(rest.split("/")[0]!)
}

/** The watchers page. */
export default function WatchersPage() {
  const mayWrite = useCan("operator.write")
  const { path } = useLocation()
  const selected = selectedId(path)
  const list = useResource(() => call((c) => c.watchers.list({ query: { state: "all" } })), {}, [])
  const action = useAction()

  const setActive = (watcher: Watcher, active: boolean) =>
    action.run(async () => {
      await call((c) => c.watchers.update({ params: { id: String(watcher.id) }, payload: { active } }))
      list.reload()
      return `Watcher ${watcher.id} ${active ? "resumed" : "paused"}.`
    })

  const watchers = list.data?.watchers ?? []
  return (
    <section aria-labelledby="watchers-title">
      <h1 id="watchers-title">Watchers</h1>
      {mayWrite ? <CreateForm onCreated={list.reload} /> : null}
      {selected !== undefined ? <Firings id={selected} /> : null}
      <h2>All watchers</h2>
      <ErrorNote error={list.error} />
      <ErrorNote error={action.error} />
      {action.done ? <p role="status" class="ok">{action.done}</p> : null}
      {list.data && watchers.length === 0 ? <p class="empty">No watchers.</p> : null}
      {watchers.length > 0 ? (
        <table class="list" aria-label="Watchers">
          <thead>
            <tr><th scope="col">#</th><th scope="col">Plan</th><th scope="col">Trigger</th><th scope="col">Settings</th><th scope="col">State</th><th scope="col">Created</th><th scope="col"><span class="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {watchers.map((w) => (
              <tr key={w.id} aria-selected={String(w.id) === selected}>
                <td>{w.id}</td>
                <td><code>{w.plan_id}</code></td>
                <td>{w.trigger_type}</td>
                <td>{settings(w)}</td>
                <td>{w.active ? "active" : "paused"}</td>
                <td><time dateTime={w.created_at}>{w.created_at}</time></td>
                <td>
                  <div class="actions">
                  <a href={`/ui/watchers/${w.id}`} aria-label={`Firings of watcher ${w.id}`}>Firings</a>
                  {mayWrite ? (
                    <button type="button" disabled={action.busy} onClick={() => setActive(w, !w.active)} aria-label={`${w.active ? "Pause" : "Resume"} watcher ${w.id}`}>
                      {w.active ? "Pause" : "Resume"}
                    </button>
                  ) : null}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
