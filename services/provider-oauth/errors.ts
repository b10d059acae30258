/**
 * Provider OAuth errors. Client-visible failures of authorize reuse the
 * gateway-wide classes (404 not_found for an unconfigured provider, 400
 * invalid_request for a bad `public_base_url` or a missing client secret);
 * this module adds the start-up error and the callback's rejection.
 *
 * @module
 */
import { Schema } from "effect"

export { InvalidRequest, NotFound } from "../shared/errors.ts"

/**
 * The OAuth providers file (`SVC_OAUTH_PROVIDERS_CONFIG`, or
 * `$SVC_HOME/oauth-providers.yml`) cannot be read, parsed or validated: the
 * gateway does not start. `message` names the path and the problem.
 */
export class OAuthProvidersConfigError extends Schema.TaggedError<OAuthProvidersConfigError>()("OAuthProvidersConfigError", {
  message: Schema.String,
  path: Schema.String
}) {}

/**
 * The callback was rejected before any exchange: missing parameters, or a
 * state that is unknown, expired, already used or bound to another provider
 * (one message for all four, so the answer is no oracle). Answered as the
 * 400 HTML page.
 */
export class InvalidCallback extends Schema.TaggedError<InvalidCallback>()("InvalidCallback", {
  message: Schema.String
}) {}
