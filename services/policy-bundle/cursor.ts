/**
 * Cursors of `GET /policy/overrides` (docs/policy-bundle.md "Pagination"):
 * opaque to clients, base64url of the JSON `[created_at, policy_override_id]`
 * of the last override of a page. The next page starts strictly after that
 * position in the order `created_at DESC, policy_override_id DESC`, so pages
 * never repeat or skip an override, even when several share a `created_at`.
 *
 * @module
 */
import type { PageAfter } from "./PolicyOverrideRepo.ts"

/** The cursor of the page after `last`. */
export const encodeCursor = (last: PageAfter): string =>
  Buffer.from(JSON.stringify([last.created_at, last.policy_override_id]), "utf8").toString("base64url")

/** The position a cursor names, or `undefined` when it is not one this gateway issued. */
export const decodeCursor = (cursor: string): PageAfter | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"))
    if (!Array.isArray(value) || value.length !== 2) return undefined
    const [created_at, policy_override_id] = value
    if (typeof created_at !== "string" || typeof policy_override_id !== "string") return undefined
    if (created_at.length === 0 || policy_override_id.length === 0) return undefined
    return { created_at, policy_override_id }
  } catch {
    return undefined
  }
}
