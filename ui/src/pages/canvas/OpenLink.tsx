/**
 * The link that opens a canvas page as the gateway serves it (`GET
 * /canvas/:id`, with the session cookie), in a new tab: the page's own CSP
 * applies there (`default-src 'none'`: no script runs), not the console's.
 */
import type { CanvasMeta } from "./types.ts"

/** "Open <title>" in a new tab, without an opener or a referrer. */
export const OpenLink = ({ page }: { page: CanvasMeta }) => (
  <a href={`/canvas/${page.id}`} target="_blank" rel="noopener noreferrer">
    Open<span class="sr-only"> {page.title}</span>
  </a>
)
