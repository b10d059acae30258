/**
 * Secrets errors. Client-visible failures reuse the gateway-wide classes
 * (400 invalid_request, 404 not_found); this module adds the rotation
 * failure. None of them ever carries a secret value.
 *
 * @module
 */
import { Schema } from "effect"

export { InvalidRequest, NotFound } from "../shared/errors.ts"

/**
 * 500 `internal`: telling the references (auth profiles) about a rotation
 * failed; the whole rotation was rolled back (the old handle is still
 * active, the new one does not exist).
 */
export class RotationPropagationFailed extends Schema.TaggedError<RotationPropagationFailed>()(
  "RotationPropagationFailed",
  { message: Schema.String },
  { httpApiStatus: 500, errorCode: "internal" }
) {}
