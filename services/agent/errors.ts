/**
 * Agent runtime errors (gateway-api.md "Agent runtime"; reference §7.9):
 * the gateway-wide 400 `invalid_request`, 404 `not_found` and 409
 * `invalid_state` (a message to a subagent that is not running), and 502
 * `agent_runtime_error` (providers/errors.ts: the provider failed, timed
 * out, or no credential resolves for it; never a credential in the message).
 *
 * @module
 */
export { InvalidRequest, InvalidState, NotFound } from "../shared/errors.ts"
export { AgentRuntimeError } from "./providers/errors.ts"

import { Schema } from "effect"

/** `unsupported_request` over WebSocket (404 over HTTP): the agent runtime is off (`SVC_AGENT_ENABLED` unset). */
export class AgentDisabled extends Schema.TaggedError<AgentDisabled>()(
  "AgentDisabled",
  { message: Schema.String },
  { httpApiStatus: 404, errorCode: "unsupported_request" }
) {}
