/**
 * Keyset pagination cursors: opaque to clients, base64url of the JSON pair
 * `[created_at, id]` of the last row of a page. The next page starts strictly
 * after that position in the listing's order, so pages never repeat or skip a
 * row, even when several share a `created_at`. Used by `approval.list` (ids are
 * integers) and `GET /policy/overrides` (ids are uuids).
 *
 * @module
 */

/** A position in a listing: the last row of the previous page. */
export interface CursorPosition<Id extends string | number> {
  readonly createdAt: string
  readonly id: Id
}

/** Encodes and decodes the cursors of one listing, whose ids `isId` accepts. */
export interface CursorCodec<Id extends string | number> {
  /** The cursor of the page after the row at `createdAt`, `id`. */
  readonly encode: (createdAt: string, id: Id) => string
  /** The position a cursor names, or `undefined` when it is not one this gateway issued. */
  readonly decode: (cursor: string) => CursorPosition<Id> | undefined
}

/** A cursor codec for a listing whose row ids satisfy `isId`. */
export const cursorCodec = <Id extends string | number>(isId: (u: unknown) => u is Id): CursorCodec<Id> => ({
  encode: (createdAt, id) => Buffer.from(JSON.stringify([createdAt, id]), "utf8").toString("base64url"),
  decode: (cursor) => {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
    try {
      const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
      if (!Array.isArray(value) || value.length !== 2) return undefined
      const [createdAt, id] = value as [unknown, unknown]
      if (typeof createdAt !== "string" || createdAt.length === 0 || createdAt.length > 64 || !isId(id)) return undefined
      return { createdAt, id }
    } catch {
      return undefined
    }
  }
})

/** `limit` truncated and clamped to 1..`max` (default 500); `fallback` (default 50) when absent. */
export const clampLimit = (limit: number | undefined, fallback = 50, max = 500): number =>
  limit === undefined ? fallback : Math.min(Math.max(Math.trunc(limit), 1), max)

/**
 * One page of a listing read with `limit + 1` rows: at most `limit` of them,
 * and `next_cursor` (the position of the last row kept, by `position`) when
 * there were more.
 */
export const pageOf = <A, Id extends string | number>(
  codec: CursorCodec<Id>,
  rows: ReadonlyArray<A>,
  limit: number,
  position: (row: A) => readonly [createdAt: string, id: Id]
): { readonly rows: ReadonlyArray<A>; readonly next_cursor?: string } => {
  if (rows.length <= limit) return { rows }
  const kept = rows.slice(0, limit)
  return { rows: kept, next_cursor: codec.encode(...position(kept[kept.length - 1])) }
}
