/**
 * The memory page's rows: search hits (score 0..1 and the snippet, the match
 * in `[…]` shown highlighted) or listed items (title, tags, created), each
 * opened with its button.
 */
import type { MemoryItem, MemoryKind, MemorySearchHit } from "./types.ts"

/** A row: a search hit or a listed item. */
export type Row = { readonly id: string; readonly kind: MemoryKind } & (
  | { readonly hit: MemorySearchHit; readonly item?: undefined }
  | { readonly item: MemoryItem; readonly hit?: undefined }
)

/** One line naming an item: its title, a fact's key, or the start of its text. */
export const labelOf = (item: MemoryItem): string => {
  switch (item.kind) {
    case "fact":
      return item.key
    case "episode":
      return clip(item.summary_md)
    default:
      return item.title ?? clip(item.body_md)
  }
}

/** A score in 0..1 readably: two decimals, or two significant digits below 0.01 (bm25 over few items is tiny). */
export const formatScore = (score: number): string =>
  score === 0 || score >= 0.01 ? score.toFixed(2) : score.toExponential(1)

const clip = (text: string): string => (text.length > 80 ? `${text.slice(0, 79)}…` : text)

/** A snippet with its `[match]` marks shown as <mark>. */
const Snippet = ({ text }: { text: string }) => (
  <>{text.split(/(\[[^\]]*\])/).map((part, i) =>
    part.startsWith("[") && part.endsWith("]") ? <mark key={i}>{part.slice(1, -1)}</mark> : part
  )}</>
)

/** The table of rows. */
export const Results = ({ rows, searching, selected, onOpen }: {
  rows: ReadonlyArray<Row>
  searching: boolean
  selected: string | undefined
  onOpen: (id: string) => void
}) => (
  <table class="list" aria-label={searching ? "Search results" : "Memory items"}>
    <thead>
      <tr>
        <th scope="col">Kind</th>
        <th scope="col">{searching ? "Match" : "Item"}</th>
        <th scope="col">{searching ? "Score" : "Tags"}</th>
        {searching ? null : <th scope="col">Created</th>}
        <th scope="col"><span class="sr-only">Actions</span></th>
      </tr>
    </thead>
    <tbody>
      {rows.map((row) => {
        const name = row.item ? labelOf(row.item) : row.id
        return (
          <tr key={row.id} aria-selected={row.id === selected}>
            <td>{row.kind}</td>
            <td class="prompt">{row.hit ? <Snippet text={row.hit.snippet ?? row.id} /> : name}</td>
            {row.hit ? <td>{formatScore(row.hit.score)}</td> : <td>{row.item.tags.join(", ")}</td>}
            {row.item ? <td>{row.item.created_at}</td> : null}
            <td>
              <button type="button" onClick={() => onOpen(row.id)}>
                Open<span class="sr-only"> {row.hit ? `result ${row.id}` : name}</span>
              </button>
            </td>
          </tr>
        )
      })}
    </tbody>
  </table>
)
