/**
 * The agent chat page's shapes, from the declarations the server uses
 * (services/agent/schema.ts, services/models/schema.ts,
 * services/approvals/schema.ts), and the page's own: one transcript entry per
 * message or slash command the operator sent.
 */
import type { Approval } from "../../../../services/approvals/schema.ts"

export type { AgentStatus, ContextReport } from "../../../../services/agent/schema.ts"
export type { CatalogModel, ModelsDevStatus, ProviderSummary } from "../../../../services/models/schema.ts"
export type { Approval }

/** The channel of the console's chat sessions: a session is (agent, `console`, thread). */
export const CHANNEL = "console"

/** The thread the page opens on. */
export const DEFAULT_THREAD = "main"

/** The event types of a turn (docs/agent.md; services/agent/events.ts). */
export const TURN_EVENTS: ReadonlyArray<string> = ["typing.started", "message.delta", "message.final", "typing.stopped", "context_report.created"]

/** One entry of the transcript: a message and the agent's reply, or a slash command and its output. */
export interface Turn {
  /** Position in this page's transcript (from 1). */
  readonly id: number
  readonly kind: "message" | "command"
  /** What the operator sent. */
  readonly text: string
  /** The reply so far (streamed from `message.delta`), the whole reply, or a command's output. */
  readonly reply: string
  /** `sending`: waiting for the turn to start; `streaming`: the agent is typing; `done`; `failed` (see `error`). */
  readonly state: "sending" | "streaming" | "done" | "failed"
  readonly error?: unknown
  /** The tools the turn called (`message.final`'s `used_tools`). */
  readonly usedTools: ReadonlyArray<string>
  /** True once `message.final` arrived. */
  readonly final: boolean
  /** The turn's context report (`context_report.created`). */
  readonly reportId?: string | undefined
}

/** A `tool_call` approval's `context.tool_call` (services/agent/AgentTools.ts). */
export interface ToolCallContext {
  readonly tool: string
  readonly tool_id: string
  readonly arguments: unknown
  readonly match_target: string
  readonly session_id: string
}

/** The tool call of a `tool_call` approval; `undefined` for other kinds. */
export const toolCallOf = (approval: Approval): ToolCallContext | undefined => {
  if (approval.kind !== "tool_call") return undefined
  const call = (approval.context as { tool_call?: ToolCallContext } | null)?.tool_call
  return call !== undefined && typeof call.session_id === "string" ? call : undefined
}

/** The approval ids a reply says it waits for (`… (approval 12).`). */
export const waitingApprovals = (reply: string): ReadonlyArray<number> =>
  [...reply.matchAll(/\(approval (\d+)\)/g)].map((m) => Number(m[1]))
