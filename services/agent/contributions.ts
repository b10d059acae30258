/**
 * What other subsystems contribute to the agent (issue 26: plugins, MCP servers as tool sources; issue 25: paired
 * nodes' capabilities): tools that join the agent's toolkit under the policy gate, slash commands that join
 * `command.execute` and `/help`, and the health of each source for `GET /agent/status`.
 *
 * The registry is push-based, so the agent never imports a contributor: a plugin host or an MCP client calls
 * {@link AgentContributions.setTools} when its tools appear or change and {@link AgentContributions.remove} when they go
 * away (a source that died), and reports its health with {@link AgentContributions.reportHealth}. Each source is named
 * `<kind>:<id>` (`plugin:echo`, `mcp:files`).
 *
 * Every contributed tool passes through the same gate as the built-in ones (`AgentTools`): offered only when the
 * agent's bundle does not deny its policy tool id outright, each call evaluated with `evaluateToolCall` against its
 * match target, `require_approval` → an approval of kind `tool_call` and the call runs when approved.
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import type { Tool } from "effect/ai"

/** Whose call it is: the agent, its workspace and the session. */
export interface ToolContext {
  readonly agentId: string
  readonly workspaceId: string
  readonly sessionId: string
  /** The session's key (`agent:<agent>:<channel>:<thread>`): where work items say they came from. */
  readonly sessionKey: string
}

/** A tool failure as the model sees it: `{error, message}` (`policy_denied`, `invalid_request`, `tool_failed`, …). */
export interface ToolFailure {
  readonly error: string
  readonly message: string
}

/** Tool names the providers accept: letters, digits, `_` and `-`, at most 64. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

/** `text` made into a tool name part: anything but letters, digits, `_` and `-` becomes `_`. */
export const toolNamePart = (text: string): string => text.replace(/[^A-Za-z0-9_-]/g, "_")

/**
 * A tool contributed to the agent's toolkit.
 *
 * - `tool`: an `effect/ai` tool, usually `Tool.dynamic(name, {description, parameters: <JSON Schema>})`; its name must
 *   match {@link TOOL_NAME_PATTERN} and be unique across sources (`plugin_<id>_<tool>`, `mcp_<server>_<tool>`,
 *   `node_<capability>`).
 * - `toolId`: the policy tool id the bundle governs (`plugin.<id>.<tool>`, `mcp.<server>.<tool>`, `node.<capability>`).
 * - `matchTarget`: what the policy's patterns are matched against for given arguments.
 * - `run`: the call itself, once the policy allowed it (or an operator approved it); its result goes to the model
 *   (capped like every tool result).
 */
export interface ContributedTool {
  readonly tool: Tool.Any
  readonly toolId: string
  readonly matchTarget: (args: Record<string, unknown>) => string
  readonly run: (args: Record<string, unknown>, context: ToolContext) => Effect.Effect<unknown, ToolFailure>
}

/** Who runs a contributed command: the agent and, when the command names them, the session's channel and thread. */
export interface CommandContext {
  readonly agentId: string
  readonly channel: string
  readonly threadId: string
}

/**
 * A slash command contributed to `command.execute` (`/<name> <args>`); `help` is its one line in `/help`. The name
 * is lowercase letters, digits, `_` and `-` and must not shadow a built-in command (a clash is reported, not applied).
 */
export interface ContributedCommand {
  readonly name: string
  readonly help: string
  readonly run: (args: string, context: CommandContext) => Effect.Effect<{ readonly output: string; readonly data?: unknown }, ToolFailure>
}

/** The state of one source as `GET /agent/status` shows it. */
export interface SourceHealth {
  /** `<kind>:<id>`, e.g. `mcp:files`. */
  readonly source: string
  /** `ready`: its tools are offered; `starting`: not yet; `failed`: down, retried at `retry_at`. */
  readonly status: "ready" | "starting" | "failed"
  /** How many tools it offers now (0 unless ready). */
  readonly tools: number
  readonly last_error?: string
  /** ISO time of the next attempt, while failed. */
  readonly retry_at?: string
  /** ISO time it last became ready. */
  readonly ready_at?: string
}

/**
 * The first tool of each name. Names are meant to be unique across sources, but contributors' naming schemes can
 * meet (`plugin_a_b_c`: plugin `a`'s tool `b_c` and plugin `a_b`'s tool `c`); a toolkit keeps the last tool of a name
 * while a call runs the first, so a later source's tool of a taken name is not offered at all.
 */
const firstOfEachName = (tools: ReadonlyArray<ContributedTool>): ReadonlyArray<ContributedTool> => {
  const seen = new Set<string>()
  return tools.filter((entry) => {
    if (seen.has(entry.tool.name)) return false
    seen.add(entry.tool.name)
    return true
  })
}

/** The registry of contributed tools, commands and source health (in process; one per gateway graph). */
export class AgentContributions extends Context.Service<AgentContributions, {
  /** Replaces source `source`'s tools (an empty list withdraws them). */
  readonly setTools: (source: string, tools: ReadonlyArray<ContributedTool>) => Effect.Effect<void>
  /**
   * Registers source `source` as a live provider: its tools are whatever `current()` answers when a turn asks (for
   * sets that change with the world, e.g. the ready capabilities of connected nodes). `current()` must be cheap and
   * keep answering the same tool objects while nothing changed.
   */
  readonly setProvider: (source: string, current: () => ReadonlyArray<ContributedTool>) => Effect.Effect<void>
  /** Replaces source `source`'s commands. */
  readonly setCommands: (source: string, commands: ReadonlyArray<ContributedCommand>) => Effect.Effect<void>
  /** Withdraws everything source `source` contributed, its health included. */
  readonly remove: (source: string) => Effect.Effect<void>
  /** Records source `source`'s health. */
  readonly reportHealth: (health: SourceHealth) => Effect.Effect<void>
  /** The contributed tools now, by source order then name; of tools sharing a name, only the first source's. */
  readonly tools: () => ReadonlyArray<ContributedTool>
  /** The contributed commands now. */
  readonly commands: () => ReadonlyArray<ContributedCommand>
  /** Every source's health, by source. */
  readonly health: () => ReadonlyArray<SourceHealth>
  /** Changes each time the tools change (a cache key for toolkits built from them). */
  readonly version: () => number
}>()("svc-gateway/agent/AgentContributions") {
  /** The in-process registry. */
  static readonly layer = Layer.sync(AgentContributions, () => {
    const toolsBySource = new Map<string, ReadonlyArray<ContributedTool>>()
    const providers = new Map<string, () => ReadonlyArray<ContributedTool>>()
    const commandsBySource = new Map<string, ReadonlyArray<ContributedCommand>>()
    const healthBySource = new Map<string, SourceHealth>()
    let version = 0
    let toolsCache: ReadonlyArray<ContributedTool> | undefined
    const sorted = <A>(map: Map<string, ReadonlyArray<A>>) => [...map.keys()].sort().flatMap((key) => map.get(key)!)
    // Members are synchronous map updates and snapshots: no span (a plain value answered per turn).
    return AgentContributions.of({
      setTools: (source, tools) =>
        Effect.sync(() => {
          if (tools.length === 0) toolsBySource.delete(source)
          else toolsBySource.set(source, tools)
          toolsCache = undefined
          version++
        }),
      setProvider: (source, current) =>
        Effect.sync(() => {
          providers.set(source, current)
          version++
        }),
      setCommands: (source, commands) =>
        Effect.sync(() => {
          if (commands.length === 0) commandsBySource.delete(source)
          else commandsBySource.set(source, commands)
        }),
      remove: (source) =>
        Effect.sync(() => {
          if (toolsBySource.delete(source) || providers.delete(source)) {
            toolsCache = undefined
            version++
          }
          commandsBySource.delete(source)
          healthBySource.delete(source)
        }),
      reportHealth: (health) => Effect.sync(() => void healthBySource.set(health.source, health)),
      tools: () => {
        const fixed = (toolsCache ??= firstOfEachName(sorted(toolsBySource)))
        if (providers.size === 0) return fixed
        return firstOfEachName([...fixed, ...[...providers.keys()].sort().flatMap((key) => providers.get(key)!())])
      },
      commands: () => sorted(commandsBySource),
      health: () => [...healthBySource.keys()].sort().map((key) => healthBySource.get(key)!),
      version: () => version
    })
  })
}
