/**
 * Routing configuration errors. Client mistakes reuse the gateway-wide
 * classes (400 `invalid_request`, 404 `not_found`); this module adds the
 * stored state that does not decode.
 *
 * @module
 */
import { Schema } from "effect"

export { InvalidRequest, NotFound } from "../shared/errors.ts"

/**
 * 500 `corrupt_state` (gateway-api.md "Routing configuration"): a stored
 * revision does not decode (its `config_json` is not JSON or not a
 * `RoutingConfig`, or its `created_by_json` is not an actor). `message` names
 * the revision and the column, never the stored text.
 */
export class CorruptState extends Schema.TaggedError<CorruptState>()(
  "CorruptState",
  { message: Schema.String },
  { httpApiStatus: 500, errorCode: "corrupt_state" }
) {}
