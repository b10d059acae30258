/**
 * The cursors of `work.list` and `work.artifact.list` (services/shared/cursor.ts):
 * `[created_at, id]` of the previous page's last row; pages are ordered by
 * `created_at`, then id, ascending.
 *
 * @module
 */
import { cursorCodec } from "../shared/cursor.ts"
import { isUuid } from "../shared/schemas.ts"

/** Work record ids are uuids. */
export const workCursor = cursorCodec(isUuid)
