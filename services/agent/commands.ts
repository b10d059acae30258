/**
 * The agent's slash commands (issue 25 §3; gateway-api.md message table
 * `command.execute`; reference §5.3; docs/agent.md "Slash commands"):
 * `command.execute {command, agent_id?, channel?, thread_id?, key?, lane?}`
 * answers `{output, data?}`, `output` the text an operator reads and `data`
 * the structured result a console renders.
 *
 * The commands ({@link COMMANDS}): `/help` (`/?`), `/new`, `/reset`, `/stop`,
 * `/compact`, `/status`, `/presence`, `/approvals`, `/pairings`, `/policy`,
 * `/context`, `/usage`, `/model`, `/queue`, `/send`. Those acting on a
 * session use the session of (`agent_id` default `default`, `channel`
 * default {@link DEFAULT_COMMAND_CHANNEL}, `thread_id` default
 * {@link DEFAULT_COMMAND_THREAD}); a command that changes it creates it when
 * absent, one that only reads it does not.
 *
 * Failures: text not starting with `/`, an unknown command (the message lists
 * the known ones) or a bad argument is `InvalidRequest` (`invalid_request`).
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { Approvals } from "../approvals/Approvals.ts"
import { Diagnostics } from "../diagnostics/Diagnostics.ts"
import { Pairings } from "../pairing/Pairings.ts"
import { PolicyBundle } from "../policy-bundle/PolicyBundle.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import { isoTime } from "../shared/time.ts"
import { Presence } from "../ws-sessions/Presence.ts"
import type { AgentSessionRow } from "./AgentRepo.ts"
import { AgentContributions } from "./contributions.ts"
import { AgentRuntime, NEW_SESSION_REPLY, type SessionKey } from "./AgentRuntime.ts"
import { InvalidRequest } from "./errors.ts"
import {
  type CommandExecuteRequest,
  type CommandExecuteResult,
  QueueMode,
  type QueueMode as QueueModeType,
  SendPolicy,
  type SendPolicy as SendPolicyType
} from "./schema.ts"
import { SessionSettingsRepo } from "./SessionSettingsRepo.ts"

/** The channel of the session a command acts on when the request names none. */
export const DEFAULT_COMMAND_CHANNEL = "operator"

/** The thread of the session a command acts on when the request names none (the console's chat). */
export const DEFAULT_COMMAND_THREAD = "console"

/** A session's queue mode until `/queue <mode>` sets one: turns run one after another. */
export const DEFAULT_QUEUE_MODE: QueueModeType = "followup"

/** A session's send policy until `/send <policy>` sets one. */
export const DEFAULT_SEND_POLICY: SendPolicyType = "inherit"

/** One slash command as `/help` lists it. */
export interface CommandHelp {
  /** `/name`. */
  readonly name: string
  /** Other spellings (`/?` for `/help`). */
  readonly aliases: ReadonlyArray<string>
  /** How to call it: `/model [<provider/model>|default]`. */
  readonly usage: string
  /** One line. */
  readonly help: string
}

const QUEUE_MODES = QueueMode.literals
const SEND_POLICIES = SendPolicy.literals

/** Every slash command, in `/help`'s order. */
export const COMMANDS: ReadonlyArray<CommandHelp> = [
  { name: "/help", aliases: ["/?"], usage: "/help", help: "Lists the commands with one line of help each." },
  { name: "/new", aliases: [], usage: "/new", help: "Starts the session over: its history and summary are forgotten." },
  { name: "/reset", aliases: [], usage: "/reset", help: "Same as /new." },
  { name: "/stop", aliases: [], usage: "/stop", help: "Stops the session's running turn (the reply so far is kept); says whether one ran." },
  { name: "/compact", aliases: [], usage: "/compact", help: "Summarises the session's older messages, keeping the newest; says how many were dropped." },
  { name: "/status", aliases: [], usage: "/status", help: "The agent's model, provider readiness and sessions." },
  { name: "/presence", aliases: [], usage: "/presence", help: "The gateway and the devices seen recently (as GET /presence)." },
  { name: "/approvals", aliases: [], usage: "/approvals", help: "The approvals waiting for a decision." },
  { name: "/pairings", aliases: [], usage: "/pairings", help: "The node pairings waiting for a decision." },
  { name: "/policy", aliases: [], usage: "/policy", help: "The effective policy bundle's sha256 and where it came from." },
  { name: "/context", aliases: [], usage: "/context", help: "A summary of the agent's last context report." },
  { name: "/usage", aliases: [], usage: "/usage", help: "The agent's token and cost totals (as GET /usage?agent_id)." },
  {
    name: "/model",
    aliases: [],
    usage: "/model [<provider/model>|default]",
    help: "Shows the session's model; /model <provider/model> sets it, /model default goes back to the agent's."
  },
  {
    name: "/queue",
    aliases: [],
    usage: `/queue [${QUEUE_MODES.join("|")}]`,
    help: "Shows the session's waiting turns and queue mode; /queue <mode> sets the mode."
  },
  {
    name: "/send",
    aliases: [],
    usage: `/send [${SEND_POLICIES.join("|")}]`,
    help: "Shows the session's outbound send policy; /send <policy> sets it."
  }
]

/** `/name` and every alias, for the unknown-command message. */
const KNOWN = COMMANDS.flatMap((c) => [c.name, ...c.aliases])

/** The command's name (lowercase, with its `/`) and the rest of the text, trimmed. */
export const parseCommand = (text: string): { readonly name: string; readonly args: string } | undefined => {
  const match = /^(\/\S*)\s*([\s\S]*)$/.exec(text.trim())
  return match === null ? undefined : { name: match[1]!.toLowerCase(), args: match[2]!.trim() }
}

const invalid = (message: string) => new InvalidRequest({ message })

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/** The slash commands service. */
export class AgentCommands extends Context.Service<AgentCommands, {
  /** `command.execute`: runs one slash command; `InvalidRequest` for an unknown command or a bad argument. */
  readonly execute: (request: CommandExecuteRequest) => Effect.Effect<CommandExecuteResult, InvalidRequest>
}>()("svc-gateway/agent/AgentCommands") {
  /**
   * Needs {@link AgentRuntime}, {@link SessionSettingsRepo}, `Presence`, `Approvals`,
   * `Pairings`, `PolicyBundle`, `Diagnostics`, `AgentContributions` (contributed commands) and `GatewayConfig`.
   */
  static readonly layerNoDeps = Layer.effect(
    AgentCommands,
    Effect.gen(function*() {
      const runtime = yield* AgentRuntime
      const sessionSettings = yield* SessionSettingsRepo
      const presence = yield* Presence
      const approvals = yield* Approvals
      const pairings = yield* Pairings
      const policy = yield* PolicyBundle
      const diagnostics = yield* Diagnostics
      const settings = yield* GatewayConfig
      const contributions = yield* AgentContributions
      const builtinNames = new Set(KNOWN)
      /** Contributed commands (plugins) that do not shadow a built-in one, as `/help` lists them. */
      const contributed = () =>
        contributions.commands().filter((command) => !builtinNames.has(`/${command.name}`))
      const known = () => [...KNOWN, ...contributed().map((command) => `/${command.name}`)]
      const helpRows = (): ReadonlyArray<CommandHelp> => [
        ...COMMANDS,
        ...contributed().map((command) => ({ name: `/${command.name}`, aliases: [], usage: `/${command.name}`, help: command.help }))
      ]

      /** The session a command acts on (a first turn's, while it runs): read-only commands do not create it. */
      const existing = (key: SessionKey) => runtime.findSession(key)

      const settingsOf = Effect.fnUntraced(function*(session: AgentSessionRow | undefined) {
        const row = session === undefined ? undefined : yield* sessionSettings.get(session.session_id)
        return {
          queue_mode: row?.queue_mode ?? DEFAULT_QUEUE_MODE,
          send_policy: row?.send_policy ?? DEFAULT_SEND_POLICY
        }
      })

      const setting = Effect.fnUntraced(function*(
        key: SessionKey,
        change: { readonly queue_mode: QueueModeType } | { readonly send_policy: SendPolicyType }
      ) {
        const session = yield* runtime.sessionFor(key)
        const row = yield* sessionSettings.set(session.session_id, change, isoTime(yield* Clock.currentTimeMillis))
        return { session, row }
      })

      /** The `data.session` of a session command: which session it was (null when it does not exist yet). */
      const sessionData = (key: SessionKey, session: AgentSessionRow | undefined) => ({
        session_id: session?.session_id ?? null,
        agent_id: key.agentId,
        channel: key.channel,
        thread_id: key.threadId
      })

      const run = Effect.fnUntraced(function*(name: string, args: string, key: SessionKey) {
        const noArgs = args === "" ? Effect.void : Effect.fail(invalid(`${name} takes no argument`))
        switch (name) {
          case "/help":
          case "/?": {
            yield* noArgs
            const rows = helpRows()
            const width = Math.max(...rows.map((c) => c.usage.length))
            return {
              output: rows.map((c) => `${c.usage.padEnd(width)}  ${c.help}`).join("\n"),
              data: { commands: rows }
            }
          }
          case "/new":
          case "/reset": {
            yield* noArgs
            const session = yield* runtime.sessionFor(key)
            yield* runtime.resetSession(session.session_id)
            return { output: NEW_SESSION_REPLY, data: { session: sessionData(key, session) } }
          }
          case "/stop": {
            yield* noArgs
            const session = yield* existing(key)
            const stopped = session === undefined ? false : yield* runtime.stopTurn(session.session_id)
            return {
              output: stopped ? "Stopped the running turn." : "No turn was running.",
              data: { stopped, session: sessionData(key, session) }
            }
          }
          case "/compact": {
            yield* noArgs
            const session = yield* existing(key)
            const dropped = session === undefined ? 0 : yield* runtime.compactSession(session.session_id)
            return {
              output: dropped === 0
                ? "Nothing to compact."
                : `Compacted the session: ${plural(dropped, "older message")} summarised and dropped.`,
              data: { dropped, session: sessionData(key, session) }
            }
          }
          case "/status": {
            yield* noArgs
            const status = yield* runtime.status(key.agentId)
            const provider = status.provider.ready
              ? `provider ${status.provider.id} ready`
              : `provider ${status.provider.id} not ready${status.provider.reason !== undefined ? `: ${status.provider.reason}` : ""}`
            return {
              output: `Agent ${status.agent_id}: model ${status.model} (${provider}); ${plural(status.session_count, "session")}; ` +
                `last turn ${status.last_turn_at ?? "never"}.`,
              data: status
            }
          }
          case "/presence": {
            yield* noArgs
            const snapshot = yield* presence.snapshot
            const lines = snapshot.entries.map((e) =>
              `- ${e.role} ${e.instance_id}${e.host !== undefined ? ` on ${e.host}` : ""}${e.mode !== undefined ? ` (${e.mode})` : ""}, last seen ${e.last_seen_at}`
            )
            return {
              output: [`${plural(snapshot.entries.length, "presence entry", "presence entries")}:`, ...lines].join("\n"),
              data: { generated_at: snapshot.generatedAt, entries: snapshot.entries }
            }
          }
          case "/approvals": {
            yield* noArgs
            const pending = yield* approvals.listByStatus("pending")
            const lines = pending.map((a) => `- #${a.id} ${a.kind}: ${a.prompt}${a.expires_at !== null ? ` (expires ${a.expires_at})` : ""}`)
            return {
              output: pending.length === 0 ? "No approvals are pending." : [`${plural(pending.length, "approval")} pending:`, ...lines].join("\n"),
              data: { approvals: pending }
            }
          }
          case "/pairings": {
            yield* noArgs
            const pending = yield* pairings.list({ status: "pending" })
            const lines = pending.map((p) => `- #${p.pairing_id} node ${p.node.node_id}${p.node.label !== undefined ? ` (${p.node.label})` : ""}, requested ${p.requested_at}`)
            return {
              output: pending.length === 0 ? "No pairings are pending." : [`${plural(pending.length, "pairing")} pending:`, ...lines].join("\n"),
              data: { pairings: pending }
            }
          }
          case "/policy": {
            yield* noArgs
            const effective = yield* policy.effective
            const data = { sha256: effective.sha256, policy_snapshot_id: effective.policy_snapshot_id, sources: effective.sources }
            return {
              output: `Effective policy bundle sha256 ${effective.sha256} (snapshot ${effective.policy_snapshot_id}); ` +
                `sources: deployment ${effective.sources.deployment}, agent ${effective.sources.agent ?? "none"}.`,
              data
            }
          }
          case "/context": {
            yield* noArgs
            const report = yield* Effect.option(runtime.lastReport(key.agentId))
            if (report._tag === "None") return { output: `Agent ${key.agentId} has no context report yet (no turn has run).`, data: { report: null } }
            const r = report.value
            const summary = {
              context_report_id: r.context_report_id,
              generated_at: r.generated_at,
              session_id: r.session_id,
              channel: r.channel,
              thread_id: r.thread_id,
              model: r.model,
              system_prompt_chars: r.system_prompt.chars,
              sections: r.system_prompt.sections.map((s) => s.id),
              history: r.history,
              memory: r.memory,
              selected_tools: r.selected_tools,
              tool_calls: r.tool_calls.length,
              usage: r.usage
            }
            return {
              output: `Last turn ${r.generated_at} in ${r.channel}/${r.thread_id} with model ${r.model}: system prompt ${r.system_prompt.chars} chars ` +
                `(${summary.sections.join(", ")}); history ${r.history.messages} kept, ${r.history.dropped} dropped; memory hits ` +
                `${r.memory.keyword_hits} keyword, ${r.memory.semantic_hits} semantic; ${plural(r.selected_tools.length, "tool")}, ` +
                `${plural(summary.tool_calls, "tool call")}; ${r.usage.total_tokens} tokens.`,
              data: { report: summary }
            }
          }
          case "/usage": {
            yield* noArgs
            const usage = yield* diagnostics.usage({ agent_id: key.agentId })
            const t = usage.totals
            return {
              output: `Agent ${key.agentId}: ${t.input_tokens} input + ${t.output_tokens} output = ${t.total_tokens} tokens, ` +
                `$${(t.usd_micros / 1_000_000).toFixed(6)} over ${plural(t.attempts, "attempt")}.`,
              data: usage
            }
          }
          case "/model": {
            if (args === "") {
              const session = yield* existing(key)
              const model = session?.model ?? settings.agentModel
              return {
                output: `Model: ${model}${session?.model == null ? " (the agent's default)" : ""}.`,
                data: { model, session_model: session?.model ?? null, default_model: settings.agentModel, session: sessionData(key, session) }
              }
            }
            if (/\s/.test(args)) return yield* Effect.fail(invalid(`/model takes one model id (provider/model), got "${args}"`))
            const model = args.toLowerCase() === "default" ? null : args
            const session = yield* runtime.sessionFor(key)
            yield* runtime.setSessionModel(session.session_id, model)
            const shown = model ?? settings.agentModel
            return {
              output: model === null ? `Model reset to the agent's default, ${shown}.` : `Model set to ${shown}.`,
              data: { model: shown, session_model: model, default_model: settings.agentModel, session: sessionData(key, session) }
            }
          }
          case "/queue": {
            if (args === "") {
              const session = yield* existing(key)
              const waiting = session === undefined ? 0 : yield* runtime.waiting(session.session_id)
              const { queue_mode } = yield* settingsOf(session)
              return {
                output: `Queue mode ${queue_mode}; ${plural(waiting, "turn")} waiting.`,
                data: { queue_mode, waiting, session: sessionData(key, session) }
              }
            }
            const mode = args.toLowerCase()
            if (!(QUEUE_MODES as ReadonlyArray<string>).includes(mode)) {
              return yield* Effect.fail(invalid(`unknown queue mode "${args}": one of ${QUEUE_MODES.join(", ")}`))
            }
            const { session, row } = yield* setting(key, { queue_mode: mode as QueueModeType })
            return {
              output: `Queue mode set to ${mode}.`,
              data: { queue_mode: row.queue_mode, waiting: yield* runtime.waiting(session.session_id), session: sessionData(key, session) }
            }
          }
          case "/send": {
            if (args === "") {
              const session = yield* existing(key)
              const { send_policy } = yield* settingsOf(session)
              return { output: `Send policy ${send_policy}.`, data: { send_policy, session: sessionData(key, session) } }
            }
            const policyName = args.toLowerCase()
            if (!(SEND_POLICIES as ReadonlyArray<string>).includes(policyName)) {
              return yield* Effect.fail(invalid(`unknown send policy "${args}": one of ${SEND_POLICIES.join(", ")}`))
            }
            const { session, row } = yield* setting(key, { send_policy: policyName as SendPolicyType })
            return { output: `Send policy set to ${policyName}.`, data: { send_policy: row.send_policy, session: sessionData(key, session) } }
          }
          default: {
            const command = contributed().find((candidate) => `/${candidate.name}` === name)
            if (command === undefined) {
              return yield* Effect.fail(invalid(`unknown command "${name}": known commands are ${known().join(", ")}`))
            }
            return yield* command.run(args, { agentId: key.agentId, channel: key.channel, threadId: key.threadId }).pipe(
              Effect.mapError((failure) => invalid(`${name} failed: ${failure.message}`))
            )
          }
        }
      })

      const execute = Effect.fn("AgentCommands.execute")(function*(request: CommandExecuteRequest) {
        const parsed = parseCommand(request.command)
        if (parsed === undefined || parsed.name === "/") {
          return yield* Effect.fail(invalid(`a command starts with "/" (try /help): known commands are ${known().join(", ")}`))
        }
        const key: SessionKey = {
          agentId: request.agent_id ?? DEFAULT_AGENT_ID,
          channel: request.channel ?? DEFAULT_COMMAND_CHANNEL,
          threadId: request.thread_id ?? DEFAULT_COMMAND_THREAD
        }
        const result: CommandExecuteResult = yield* run(parsed.name, parsed.args, key)
        return result
      })

      return AgentCommands.of({ execute })
    })
  )

  /**
   * Wired: the runtime, the session settings and the services the commands read (each the same instance as its own
   * subsystem's, layers being memoized); needs what `AgentRuntime.layer` needs.
   */
  static readonly layer = AgentCommands.layerNoDeps.pipe(
    Layer.provide(Layer.mergeAll(
      AgentRuntime.layer,
      SessionSettingsRepo.layer,
      Presence.layer,
      Approvals.layer,
      Pairings.layer,
      PolicyBundle.layer,
      Diagnostics.layer,
      AgentContributions.layer
    ))
  )
}
