/**
 * Errors of node dispatch and evidence (docs/nodes.md "Errors"). Each declares
 * its HTTP status and wire code once; `details` travels as `error.details`
 * over WebSocket and as extra fields of the HTTP body
 * (services/shared/errors.ts `errorDetails`).
 *
 * @module
 */
import { Schema } from "effect"

export { Forbidden, InvalidRequest, NotFound } from "../shared/errors.ts"

/** Ids of the task a failure belongs to. */
const TaskRef = {
  node_id: Schema.String,
  run_id: Schema.String,
  step_id: Schema.String,
  attempt_id: Schema.String
}

/** Why one node (connection) was not eligible. */
export const Refusal = Schema.Struct({ node_id: Schema.String, reason: Schema.String })
export type Refusal = typeof Refusal.Type

/**
 * 409 `no_eligible_node`: no connected node may run the capability (or the
 * addressed node may not). `details.refusals` says why each connected node
 * was passed over (at most 20).
 */
export class NoEligibleNode extends Schema.TaggedError<NoEligibleNode>()(
  "NoEligibleNode",
  {
    message: Schema.String,
    details: Schema.Struct({
      capability: Schema.String,
      node_id: Schema.optionalKey(Schema.String),
      refusals: Schema.Array(Refusal)
    })
  },
  { httpApiStatus: 409, errorCode: "no_eligible_node" }
) {}

/**
 * 502 `node_task_failed`: the node answered `task.execute` with an error (or
 * with a result that is not `{result?, evidence?}`). `details.node_error` is
 * the node's `{code, message}`, `details.evidence` its `details.evidence`.
 */
export class NodeTaskFailed extends Schema.TaggedError<NodeTaskFailed>()(
  "NodeTaskFailed",
  {
    message: Schema.String,
    details: Schema.Struct({
      ...TaskRef,
      node_error: Schema.Struct({ code: Schema.String, message: Schema.String }),
      evidence: Schema.optionalKey(Schema.Unknown)
    })
  },
  { httpApiStatus: 502, errorCode: "node_task_failed" }
) {}

/** 504 `node_timeout`: the node did not answer within the timeout. */
export class NodeTaskTimeout extends Schema.TaggedError<NodeTaskTimeout>()(
  "NodeTaskTimeout",
  { message: Schema.String, details: Schema.Struct({ ...TaskRef, timeout_ms: Schema.Number }) },
  { httpApiStatus: 504, errorCode: "node_timeout" }
) {}

/** 502 `node_disconnected`: the node's connection closed before it answered. */
export class NodeDisconnected extends Schema.TaggedError<NodeDisconnected>()(
  "NodeDisconnected",
  { message: Schema.String, details: Schema.Struct(TaskRef) },
  { httpApiStatus: 502, errorCode: "node_disconnected" }
) {}

/** Any failure of `NodeDispatch.dispatch`. */
export type DispatchError = NoEligibleNode | NodeTaskFailed | NodeTaskTimeout | NodeDisconnected

/**
 * 400 `invalid_request`: `attempt.evidence` above the limit (reference §5.2:
 * 256 KiB characters of JSON), with `details {max_chars, actual_chars}`.
 */
export class EvidenceTooLarge extends Schema.TaggedError<EvidenceTooLarge>()(
  "EvidenceTooLarge",
  { message: Schema.String, details: Schema.Struct({ max_chars: Schema.Number, actual_chars: Schema.Number }) },
  { httpApiStatus: 400, errorCode: "invalid_request" }
) {}
