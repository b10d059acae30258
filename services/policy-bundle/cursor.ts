/**
 * The cursor of `GET /policy/overrides` (services/shared/cursor.ts;
 * docs/policy-bundle.md "Pagination"): `[created_at, policy_override_id]` of
 * the last override of a page, in the order `created_at DESC,
 * policy_override_id DESC`.
 *
 * @module
 */
import { cursorCodec } from "../shared/cursor.ts"

/** Override ids are non-empty strings (uuids). */
export const overrideCursor = cursorCodec((u): u is string => typeof u === "string" && u.length > 0 && u.length <= 64)
