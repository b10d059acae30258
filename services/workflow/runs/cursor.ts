/**
 * The cursor of the run listing (services/shared/cursor.ts): `[created_at,
 * seq]` of the previous page's last run; pages are ordered newest first by
 * `created_at`, then arrival (`seq`), descending.
 *
 * @module
 */
import { cursorCodec } from "../../shared/cursor.ts"

/** Arrival sequence numbers are positive integers. */
export const runCursor = cursorCodec((u): u is number => Number.isSafeInteger(u) && (u as number) >= 1)
