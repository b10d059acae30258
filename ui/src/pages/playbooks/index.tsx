/**
 * Playbooks (issue 23 §2.4): the playbooks loaded from
 * `$SVC_HOME/playbooks/*\/playbook.yml` and the files that did not load (with
 * the line), and one playbook's panel: its steps, the dry run with each
 * step's policy decision, then starting a run (PlaybookPanel.tsx). The files
 * are reloaded by the gateway when they change; no event announces it, so
 * the list has a Reload button (and polls while the live connection is down).
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { PlaybookPanel } from "./PlaybookPanel.tsx"
import "../runs/liveCapture.ts"

/** The playbooks page. */
export default function PlaybooksPage() {
  const list = useResource(() => call((c) => c.playbooks.list()), {}, [])
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const playbooks = list.data?.playbooks ?? []
  const errors = list.data?.errors ?? []
  const current = playbooks.find((p) => p.id === selected)

  return (
    <section aria-labelledby="playbooks-title">
      <h1 id="playbooks-title">Playbooks</h1>
      <div class="toolbar">
        <button type="button" onClick={list.reload} disabled={list.loading}>Reload</button>
        <span aria-live="polite" class="count">{list.data ? `${playbooks.length} loaded, ${errors.length} failed` : ""}</span>
      </div>
      <ErrorNote error={list.error} />
      {current ? <PlaybookPanel summary={current} onClose={() => setSelected(undefined)} /> : null}
      {list.data && playbooks.length === 0 ? <p class="empty">No playbooks in <code>$SVC_HOME/playbooks</code>.</p> : null}
      {playbooks.length > 0 ? (
        <table class="list" aria-label="Playbooks">
          <thead>
            <tr><th scope="col">Id</th><th scope="col">Name</th><th scope="col">Version</th><th scope="col">Steps</th><th scope="col">Description</th><th scope="col"><span class="sr-only">Actions</span></th></tr>
          </thead>
          <tbody>
            {playbooks.map((p) => (
              <tr key={p.id} aria-selected={p.id === selected}>
                <td><code>{p.id}</code></td>
                <td>{p.name}</td>
                <td>{p.version}</td>
                <td>{p.step_count}</td>
                <td class="prompt">{p.description ?? "—"}</td>
                <td><button type="button" onClick={() => setSelected(p.id)} aria-label={`Open playbook ${p.id}`}>Open</button></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {errors.length > 0 ? (
        <>
          <h2>Files that did not load</h2>
          <ul class="load-errors">
            {errors.map((e) => (
              <li key={e.file_path}><code>{e.file_path}</code>{e.line === undefined ? "" : `:${e.line}`}: <span class="error">{e.message}</span></li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  )
}
