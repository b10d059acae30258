/**
 * The node executor (issue 12 "Executors"; docs/workflow-executors.md): steps
 * of kind `Web`, `Android`, `Desktop`, `Node`, or any step with
 * `args.capability`, run on a paired node through `NodeDispatch`.
 *
 * - capability: `args.capability`, else the kind's default: the reference's
 *   capability map in the gateway's namespace (reference §5 "dispatch
 *   eligibility": `<ns>.<cap>`), i.e. `Web` → `svc.playwright`, `Android` →
 *   `svc.android`, `Desktop` → `svc.desktop` (capability ids are namespaced,
 *   so a bare `playwright` could never be declared by a node); a `Node` step
 *   must name one.
 * - `args.node_id` (optional) addresses one node.
 * - the node receives `task.execute` with `action: {type, args}` and the
 *   attempt's run, step and attempt ids; it must answer within the attempt's timeout.
 * - result: the node's `result` (`null` when absent); evidence
 *   `{node_id, evidence?}`; the artifacts the node attached through
 *   `attempt.evidence` are listed in the attempt's record.
 * - fails `invalid_action`, `node_unavailable` (no eligible node),
 *   `node_task_failed` (with the node's evidence), `node_timeout`,
 *   `node_disconnected`.
 *
 * @module
 */
import { Duration, Effect } from "effect"
import type { DispatchError } from "../../nodes/errors.ts"
import { NodeDispatch } from "../../nodes/NodeDispatch.ts"
import { type ActionPrimitive, type ActionPrimitiveKind, CAPABILITY_BY_KIND } from "../../planner/schema.ts"
import { AttemptFailed, type AttemptContext, type AttemptOutcome } from "../StepExecutor.ts"
import { AttemptArtifactLink, type AttemptArtifactLinkOf } from "./AttemptArtifacts.ts"
import { defineExecutor } from "./registry.ts"
import type { ActionExecutor } from "./types.ts"

/** Kinds that always run on a node. */
export const NODE_KINDS: ReadonlySet<ActionPrimitiveKind> = new Set<ActionPrimitiveKind>(["Web", "Android", "Desktop", "Node"])

/** True when the step runs on a paired node: a node kind, or any kind with a string `args.capability`. */
export const runsOnNode = (action: ActionPrimitive): boolean =>
  NODE_KINDS.has(action.type) || typeof action.args.capability === "string"

/** The namespace of the default capabilities of device kinds. */
export const DEFAULT_CAPABILITY_NAMESPACE = "svc"

/** The capability a node step needs: `args.capability`, else its kind's default `svc.<cap>` (none for `Node`). */
export const capabilityOf = (action: ActionPrimitive): string | undefined => {
  const explicit = action.args.capability
  if (typeof explicit === "string" && explicit.trim() !== "") return explicit.trim()
  const bare = NODE_KINDS.has(action.type) ? CAPABILITY_BY_KIND[action.type] : undefined
  return bare === undefined ? undefined : `${DEFAULT_CAPABILITY_NAMESPACE}.${bare}`
}

/** A dispatch failure as a failed attempt. */
export const attemptFailedOf = (error: DispatchError): AttemptFailed => {
  switch (error._tag) {
    case "NoEligibleNode":
      return new AttemptFailed({ code: "node_unavailable", message: error.message, evidence: error.details })
    case "NodeTaskFailed":
      return new AttemptFailed({
        code: "node_task_failed",
        message: error.message,
        ...(error.details.evidence !== undefined ? { evidence: error.details.evidence } : {}),
        result: { node_id: error.details.node_id, node_error: error.details.node_error }
      })
    case "NodeTaskTimeout":
      return new AttemptFailed({ code: "node_timeout", message: error.message })
    case "NodeDisconnected":
      return new AttemptFailed({ code: "node_disconnected", message: error.message })
  }
}

/**
 * The node executor over `dispatch`; `linkOf` gives the durable link of the
 * artifacts the node attaches through `attempt.evidence` (its run's policy
 * snapshot and agent), listed in the attempt's record.
 */
export const makeNodeExecutor = (dispatch: NodeDispatch["Service"], linkOf?: AttemptArtifactLinkOf): ActionExecutor =>
  Effect.fnUntraced(function*(action: ActionPrimitive, context: AttemptContext) {
    const capability = capabilityOf(action)
    if (capability === undefined) {
      return yield* new AttemptFailed({
        code: "invalid_action",
        message: `${action.type} steps need args.capability naming the node capability to run`
      })
    }
    const nodeId = action.args.node_id
    if (nodeId !== undefined && typeof nodeId !== "string") {
      return yield* new AttemptFailed({ code: "invalid_action", message: "args.node_id must be a string" })
    }
    const link = linkOf === undefined ? undefined : yield* linkOf(context)
    const response = yield* dispatch.dispatch({
      capability,
      ...(link !== undefined ? { artifact_link: { policy_snapshot_id: link.policy_snapshot_id, agent_id: link.agent_id } } : {}),
      action: { type: action.type, args: action.args },
      node_id: nodeId,
      run_id: context.run_id,
      step_id: context.step_id,
      attempt_id: context.attempt_id,
      timeout: Duration.millis(context.timeout_ms)
    }).pipe(Effect.mapError(attemptFailedOf))
    return {
      result: response.result ?? null,
      evidence: { node_id: response.node_id, ...(response.evidence !== undefined ? { evidence: response.evidence } : {}) },
      ...(response.artifacts !== undefined ? { artifacts: response.artifacts } : {})
    } satisfies AttemptOutcome as AttemptOutcome
  })

/** The node executor over the environment's `NodeDispatch`: the node kinds, and any step with `args.capability`. */
export const NodeExecutor = defineExecutor({
  kinds: [...NODE_KINDS],
  claims: (action) => typeof action.args.capability === "string",
  make: Effect.gen(function*() {
    return makeNodeExecutor(yield* NodeDispatch, yield* AttemptArtifactLink)
  })
})
