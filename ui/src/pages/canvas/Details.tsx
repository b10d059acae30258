/**
 * One canvas page's metadata (`GET /canvas/:id/meta`) and the link that
 * opens it: the gateway serves it under its own strict CSP (no script runs),
 * in a new tab, never inside the console.
 */
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Json } from "../../components/Json.tsx"
import { OpenLink } from "./OpenLink.tsx"

/** The metadata panel of page `id`; `onClose` hides it. */
export const Details = ({ id, onClose }: { id: string; onClose: () => void }) => {
  const meta = useResource(() => call((c) => c.canvas.meta({ params: { id } })), {}, [id])
  const page = meta.data
  return (
    <section class="panel" aria-labelledby="canvas-details-title">
      <h2 id="canvas-details-title">{page ? page.title : "Canvas page"}</h2>
      <ErrorNote error={meta.error} />
      {page ? (
        <>
          <dl class="facts">
            <dt>Id</dt><dd><code>{page.id}</code></dd>
            <dt>Type</dt><dd>{page.content_type}</dd>
            <dt>Plan</dt><dd>{page.plan_id === null ? "none" : <code>{page.plan_id}</code>}</dd>
            <dt>Size</dt><dd>{page.size_bytes} bytes</dd>
            <dt>Published</dt><dd>{page.created_at}</dd>
          </dl>
          {page.metadata === null ? <p class="hint">No metadata.</p> : <Json value={page.metadata} label="Canvas metadata" />}
        </>
      ) : null}
      <div class="actions">
        {page ? <OpenLink page={page} /> : null}
        <button type="button" onClick={onClose}>Close</button>
      </div>
    </section>
  )
}
