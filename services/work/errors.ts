/**
 * Work board errors (docs/work.md "Errors"): the gateway-wide 400
 * `invalid_request` (a bad payload, a cycle or cross-scope `depends_on`, a
 * bad cursor or signal spec) and 404 `not_found` (an id unknown in the
 * payload's scope), plus the two refusals of `work.transition`, whose
 * `details` travel as `error.details` over WebSocket.
 *
 * @module
 */
import { Schema } from "effect"
import { WorkItemStatus } from "./schema.ts"

export { InvalidRequest, NotFound } from "../shared/errors.ts"

/**
 * 409 `invalid_transition`: the state machine (transitions.ts) does not allow
 * `from` → `to`; `allowed` lists the states `from` may move to.
 */
export class InvalidTransition extends Schema.TaggedError<InvalidTransition>()(
  "InvalidTransition",
  {
    message: Schema.String,
    details: Schema.Struct({
      code: Schema.Literal("invalid_transition"),
      from: WorkItemStatus,
      to: WorkItemStatus,
      allowed: Schema.Array(WorkItemStatus)
    })
  },
  { httpApiStatus: 409, errorCode: "invalid_transition" }
) {}

/**
 * 409 `wip_limit_exceeded`: entering `doing` would exceed the WIP limit of the
 * item's (tenant, agent, workspace); `current` items are in `doing`.
 */
export class WipLimitExceeded extends Schema.TaggedError<WipLimitExceeded>()(
  "WipLimitExceeded",
  {
    message: Schema.String,
    details: Schema.Struct({
      code: Schema.Literal("wip_limit_exceeded"),
      from: WorkItemStatus,
      to: Schema.Literal("doing"),
      limit: Schema.Int,
      current: Schema.Int
    })
  },
  { httpApiStatus: 409, errorCode: "wip_limit_exceeded" }
) {}
