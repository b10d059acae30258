/**
 * Auth subsystem errors. Client-visible failures reuse the gateway-wide
 * classes in `services/shared/errors.ts` (401 unauthorized, 403 forbidden,
 * 404 not_found, 429 too_many_requests); this module adds the start-up error.
 */
import { Schema } from "effect"

export { Forbidden, NotFound, TooManyRequests, Unauthorized } from "../shared/errors.ts"

/** The admin token could not be read or written under `$SVC_HOME` (start-up fails with this message). */
export class AdminTokenError extends Schema.TaggedError<AdminTokenError>()("AdminTokenError", {
  message: Schema.String
}) {}
