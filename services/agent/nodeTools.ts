/**
 * The ready capabilities of paired nodes as agent tools (issue 25 §2 "Tools": `node_<capability>` through
 * NodeDispatch; docs/agent.md "Tools and policy").
 *
 * Each capability that at least one connected node has declared ready (`capability.ready`) is offered as
 * `node_<capability>`, its dots and dashes made underscores (`cli.exec` → `node_cli_exec`). Parameters:
 * `{args?: object, node_id?: string}`; a call dispatches `task.execute` with `action: {type: "Node", args: {...args,
 * capability}}` to an eligible node (`node_id` addresses one) exactly as a workflow `Node` step does, and the model
 * gets `{node_id, result, evidence?, artifacts?}`. The policy tool id is the one the workflow's node steps use,
 * `tool.node.dispatch`, matched against the capability id, so one bundle rule governs both. A capability no longer
 * ready disappears from the next turn's tools. Failures the model sees: `node_unavailable` (no eligible node),
 * `node_task_failed`, `node_timeout`, `node_disconnected`.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { Tool } from "effect/ai"
import { Backplane } from "../backplane/Backplane.ts"
import { NodeDispatch } from "../nodes/NodeDispatch.ts"
import { AgentContributions, type ContributedTool, toolNamePart } from "./contributions.ts"

/** The policy tool id of node tools: the workflow node steps' (`services/workflow/executors/toolCall.ts`). */
export const NODE_TOOL_POLICY_ID = "tool.node.dispatch"

/** How long a node tool call waits for the node's answer. */
export const NODE_TOOL_TIMEOUT = "30 seconds"

/** The source name of node tools in `AgentContributions`. */
export const NODE_TOOLS_SOURCE = "node:capabilities"

/** `node_<capability>` with `.` and `-` as `_`, at most 64 characters. */
export const nodeToolName = (capability: string): string => `node_${toolNamePart(capability).replace(/-/g, "_")}`.slice(0, 64)

const NodeToolParameters = {
  type: "object",
  properties: {
    args: { type: "object", description: "Arguments of the task, as the node's capability expects them" },
    node_id: { type: "string", description: "Run on this node only (device id); any eligible node when absent" }
  },
  additionalProperties: false
} as const

const failureCode = {
  NoEligibleNode: "node_unavailable",
  NodeTaskFailed: "node_task_failed",
  NodeTaskTimeout: "node_timeout",
  NodeDisconnected: "node_disconnected"
} as const

/** Registers the node tools provider: reads the connected nodes' ready sets when a turn asks. */
export const NodeToolsLive = Layer.effectDiscard(Effect.gen(function*() {
  const contributions = yield* AgentContributions
  const backplane = yield* Backplane
  const dispatch = yield* NodeDispatch
  /** One tool object per capability, kept while the capability stays ready (toolkits are cached by their tools). */
  const byCapability = new Map<string, ContributedTool>()
  const toolOf = (capability: string): ContributedTool => {
    let entry = byCapability.get(capability)
    if (entry === undefined) {
      entry = {
        tool: Tool.dynamic(nodeToolName(capability), {
          description: `Run the "${capability}" capability on a paired node and get its result.`,
          parameters: NodeToolParameters
        }),
        toolId: NODE_TOOL_POLICY_ID,
        matchTarget: () => capability,
        run: (args) => {
          const taskArgs = typeof args.args === "object" && args.args !== null && !Array.isArray(args.args) ? args.args : {}
          return dispatch.dispatch({
            capability,
            action: { type: "Node", args: { ...taskArgs, capability } },
            node_id: typeof args.node_id === "string" ? args.node_id : undefined,
            timeout: NODE_TOOL_TIMEOUT
          }).pipe(
            Effect.map(({ node_id, result, evidence, artifacts }) => ({
              node_id,
              result: result ?? null,
              ...(evidence !== undefined ? { evidence } : {}),
              ...(artifacts !== undefined ? { artifacts } : {})
            })),
            Effect.mapError((error) => ({ error: failureCode[error._tag], message: error.message }))
          )
        }
      }
      byCapability.set(capability, entry)
    }
    return entry
  }
  yield* contributions.setProvider(NODE_TOOLS_SOURCE, () => {
    const ready = new Set<string>()
    for (const connection of backplane.connections()) {
      if (connection.role !== "node") continue
      for (const id of connection.readyCapabilities) ready.add(id)
    }
    return [...ready].sort().map(toolOf)
  })
}))
