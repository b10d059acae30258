/**
 * Policy-bundle errors. Client-visible failures reuse the gateway-wide
 * classes (400 invalid_request, 404 not_found; services/shared/errors.ts);
 * this module adds the start-up error.
 *
 * @module
 */
import { Schema } from "effect"

export { InvalidRequest, NotFound } from "../shared/errors.ts"

/**
 * The deployment bundle (`SVC_POLICY_BUNDLE_PATH`) is set but cannot be
 * read, parsed or validated: the gateway does not start. `message` names the
 * path and the problem; `path` is the file.
 */
export class PolicyBundleLoadError extends Schema.TaggedError<PolicyBundleLoadError>()("PolicyBundleLoadError", {
  message: Schema.String,
  path: Schema.String
}) {}
