/**
 * The cursor of `approval.list` (services/shared/cursor.ts): `[created_at, id]`
 * of the previous page's last approval; pages are ordered by `created_at`,
 * then `id`, ascending.
 *
 * @module
 */
import { cursorCodec } from "../shared/cursor.ts"

/** Approval ids are positive integers. */
export const approvalCursor = cursorCodec((u): u is number => Number.isSafeInteger(u) && (u as number) >= 1)
