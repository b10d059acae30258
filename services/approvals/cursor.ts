/**
 * The opaque cursor of `approval.list`: base64url of the JSON pair
 * `[created_at, id]` of the previous page's last approval (pages are ordered by
 * `created_at`, then `id`, ascending).
 */

/** A position in the listing order. */
export interface ApprovalCursor {
  readonly createdAt: string
  readonly id: number
}

/** The cursor after `approval`. */
export const encodeCursor = (approval: { readonly created_at: string; readonly id: number }): string =>
  Buffer.from(JSON.stringify([approval.created_at, approval.id]), "utf8").toString("base64url")

/** The position a cursor names, or `undefined` when it is not one of ours. */
export const decodeCursor = (cursor: string): ApprovalCursor | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    if (!Array.isArray(value) || value.length !== 2) return undefined
    const [createdAt, id] = value as [unknown, unknown]
    if (typeof createdAt !== "string" || createdAt.length > 64 || !Number.isSafeInteger(id) || (id as number) < 1) return undefined
    return { createdAt, id: id as number }
  } catch {
    return undefined
  }
}
