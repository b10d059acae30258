/**
 * Client-side pages of a long list (1,000 pending approvals render 50 rows at
 * a time): the slice to show and the controls.
 */
import { useState } from "preact/hooks"

/** The current page of `items` and its controls. */
export const usePager = <A,>(items: ReadonlyArray<A>, size = 50) => {
  const [page, setPage] = useState(0)
  const pages = Math.max(1, Math.ceil(items.length / size))
  const current = Math.min(page, pages - 1)
  return {
    slice: items.slice(current * size, current * size + size),
    controls: pages <= 1 ? null : (
      <nav class="pager" aria-label="List pages">
        <button type="button" disabled={current === 0} onClick={() => setPage(current - 1)}>Previous</button>
        <span>Page {current + 1} of {pages} ({items.length} items)</span>
        <button type="button" disabled={current >= pages - 1} onClick={() => setPage(current + 1)}>Next</button>
      </nav>
    )
  }
}
