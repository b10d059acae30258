/**
 * Cursors of `memory.list` and `memory.search` (opaque to clients).
 *
 * `memory.list`: a real keyset cursor (services/shared/cursor.ts), the
 * `[created_at, memory_item_id]` of the previous page's last item; pages run
 * newest first. `memory.search`: ranks change as items are written, so its
 * cursor is the offset of the next page bound to the search it continues
 * (a digest of agent, query and filter): a cursor of another search, of a
 * listing or of anything else is refused ("invalid cursor").
 *
 * @module
 */
import { canonicalSha256 } from "../shared/canonicalJson.ts"
import { cursorCodec } from "../shared/cursor.ts"
import { isUuid } from "../shared/schemas.ts"

/** `memory.list` cursors: ids are UUIDs. */
export const listCursor = cursorCodec(isUuid)

/** The digest a search cursor is bound to (16 hex characters). */
export const searchDigest = (agentId: string, query: string, filter: unknown): string =>
  canonicalSha256({ agentId, query, filter: filter ?? null }).slice(0, 16)

/** Largest offset a search cursor may name. */
const MAX_OFFSET = 100_000

/** `memory.search` cursors: `["search", digest, offset]`. */
export const searchCursor = {
  /** The cursor of the page starting at `offset` of the search `digest`. */
  encode: (digest: string, offset: number): string =>
    Buffer.from(JSON.stringify(["search", digest, offset]), "utf8").toString("base64url"),
  /** The offset a cursor names for the search `digest`, or `undefined` when it is not such a cursor. */
  decode: (cursor: string, digest: string): number | undefined => {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
    try {
      const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
      if (!Array.isArray(value) || value.length !== 3 || value[0] !== "search" || value[1] !== digest) return undefined
      const offset = value[2]
      return Number.isSafeInteger(offset) && offset >= 1 && offset <= MAX_OFFSET ? offset as number : undefined
    } catch {
      return undefined
    }
  }
}
