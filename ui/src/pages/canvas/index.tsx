/**
 * Canvas: the published canvas pages, newest first (`GET /canvas`, 50 at a
 * time, "Load more" follows `next_cursor`), each opened in a new tab as the
 * gateway serves it (its own CSP: no script runs) or shown with its metadata
 * (Details.tsx). Publishing sends no event, so the list reloads with its
 * Reload button (and polls while the live connection is down).
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Details } from "./Details.tsx"
import { OpenLink } from "./OpenLink.tsx"
import type { CanvasMeta } from "./types.ts"

/** The canvas page. */
export default function CanvasPage() {
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const [more, setMore] = useState<{ pages: ReadonlyArray<CanvasMeta>; next_cursor?: string | undefined }>({ pages: [] })
  const first = useResource(async () => {
    const answer = await call((c) => c.canvas.list({ query: {} }))
    setMore({ pages: [] })
    return answer
  }, {}, [])
  const loadMore = useAction()
  const cursor = more.pages.length > 0 ? more.next_cursor : first.data?.next_cursor
  const all = [...(first.data?.pages ?? []), ...more.pages]

  const next = () =>
    cursor === undefined ? undefined : loadMore.run(async () => {
      const answer = await call((c) => c.canvas.list({ query: { cursor } }))
      setMore((previous) => ({ pages: [...previous.pages, ...answer.pages], next_cursor: answer.next_cursor }))
    })

  return (
    <section aria-labelledby="canvas-title">
      <h1 id="canvas-title">Canvas</h1>
      <div class="toolbar">
        <span aria-live="polite" class="count">{first.data ? `${all.length} pages${cursor !== undefined ? " (more to load)" : ""}` : ""}</span>
        <button type="button" onClick={first.reload}>Reload</button>
      </div>
      <ErrorNote error={first.error} />
      {selected !== undefined ? <Details id={selected} onClose={() => setSelected(undefined)} /> : null}
      {first.data && all.length === 0 ? <p class="empty">No canvas page yet. Agents and operators publish them with POST /canvas/publish.</p> : null}
      {all.length > 0 ? (
        <table class="list" aria-label="Canvas pages">
          <thead>
            <tr>
              <th scope="col">Title</th><th scope="col">Type</th><th scope="col">Plan</th><th scope="col">Size</th>
              <th scope="col">Published</th><th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {all.map((page) => (
              <tr key={page.id} aria-selected={page.id === selected}>
                <td>{page.title}</td>
                <td>{page.content_type}</td>
                <td>{page.plan_id === null ? "" : <code>{page.plan_id}</code>}</td>
                <td>{page.size_bytes} bytes</td>
                <td>{page.created_at}</td>
                <td>
                  <div class="actions">
                    <OpenLink page={page} />
                    <button type="button" onClick={() => setSelected(page.id)}>Details<span class="sr-only"> of {page.title}</span></button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <ErrorNote error={loadMore.error} />
      {cursor !== undefined ? <button type="button" disabled={loadMore.busy} onClick={next}>{loadMore.busy ? "Loading…" : "Load more"}</button> : null}
    </section>
  )
}
