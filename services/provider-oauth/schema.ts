/**
 * Wire schemas of provider OAuth (gateway-api.md "Provider OAuth"; reference
 * §7.11): the authorize request and response and the callback's query.
 *
 * @module
 */
import { Schema } from "effect"
import { AgentId } from "../shared/agent.ts"

/** A provider id: letters, digits, `.`, `_`, `-` (1–64); it is part of paths and secret scopes. */
export const ProviderId = Schema.String.check(
  Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { expected: "1 to 64 letters, digits, _, - or . (not first)" })
)

export { AgentId, DEFAULT_AGENT_ID } from "../shared/agent.ts"

/** `POST /providers/:provider/oauth/authorize` body. */
export const OAuthAuthorizeRequest = Schema.Struct({
  agent_id: Schema.optionalKey(AgentId),
  /** Absolute http(s) URL without query or fragment; the callback is `<it>/providers/<id>/oauth/callback`. */
  public_base_url: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "OAuthAuthorizeRequest" })
export type OAuthAuthorizeRequest = typeof OAuthAuthorizeRequest.Type

/** `POST /providers/:provider/oauth/authorize` answer. */
export const OAuthAuthorizeResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  provider: Schema.String,
  state: Schema.String,
  expires_at: Schema.String,
  authorize_url: Schema.String
}).annotate({ identifier: "OAuthAuthorizeResponse" })
export type OAuthAuthorizeResponse = typeof OAuthAuthorizeResponse.Type

/**
 * The callback's query: `state` and `code`, or `state` and `error`
 * (+ `error_description`). Every field is optional here so that a missing one
 * is answered with the 400 HTML page, not a JSON error.
 */
export const OAuthCallbackQuery = Schema.Struct({
  state: Schema.optionalKey(Schema.String),
  code: Schema.optionalKey(Schema.String),
  error: Schema.optionalKey(Schema.String),
  error_description: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "OAuthCallbackQuery" })
export type OAuthCallbackQuery = typeof OAuthCallbackQuery.Type
