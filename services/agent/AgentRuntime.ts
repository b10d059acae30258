/**
 * The agent runtime (issue 25 §2–4; gateway-api.md "Agent runtime",
 * WebSocket `session.send`; reference §7.9; docs/agent.md): one turn loads
 * the session (one per agent, channel and thread; `session_id` stable), its
 * history trimmed to `SVC_AGENT_HISTORY_TOKENS` (history.ts) and the agent's
 * top memory hits for the message (services/memory, keyword search), calls
 * the session's model (models.ts) streaming, and stores the exchange and a
 * context report, in one transaction. A new thread's session is stored by
 * that transaction too (one commit for a first turn), or earlier when the
 * turn calls a tool (approvals and waiting calls refer to it) or fails.
 *
 * While a turn runs, operator readers get `typing.started`, `message.delta`
 * (each text chunk), `message.final` and `typing.stopped` (also after a
 * failure). Turns of one session run one after another (in this process).
 * `/new` and `/reset` as the whole message start the session over without
 * calling the model.
 *
 * Failures: a request whose envelope disagrees with its fields, or without
 * `channel`, `thread_id` and `message`, is `InvalidRequest` (400); the
 * provider failing, timing out or lacking a credential is
 * `AgentRuntimeError` (502) naming the provider, never a credential.
 *
 * @module
 */
import { Clock, Context, Deferred, Effect, Layer, Schema, Semaphore, Stream } from "effect"
import { Prompt, type Response, Tool, Toolkit } from "effect/ai"
import { GatewayConfig } from "../../layers/config.ts"
import { Approvals } from "../approvals/Approvals.ts"
import { Memory } from "../memory/Memory.ts"
import { usdMicros } from "../models/catalog.ts"
import { Models } from "../models/Models.ts"
import { PolicyBundle } from "../policy-bundle/PolicyBundle.ts"
import { Work } from "../work/Work.ts"
import { WorkflowLive } from "../workflow/Workflow.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { type AgentContextReportRow, AgentRepo, type AgentSessionRow } from "./AgentRepo.ts"
import { AgentRuntimeError, InvalidRequest, NotFound } from "./errors.ts"
import { ContextReportCreated, MessageDelta, MessageFinal, TypingStarted, TypingStopped } from "./events.ts"
import { loadHistory, makeMessageCache, trimHistory } from "./history.ts"
import { AgentModels } from "./models.ts"
import { AgentTools, type ToolContext, type TurnToolState } from "./AgentTools.ts"
import { AgentContributions } from "./contributions.ts"
import { NODE_TOOL_POLICY_ID } from "./nodeTools.ts"
import { toolIdOf } from "./tools.ts"
import { providerFor } from "./providers/resolve.ts"
import type {
  AgentStatus,
  AgentTurnRequest,
  AgentTurnResult,
  ContextReport,
  SessionSendRequest,
  SessionSendResult
} from "./schema.ts"

/** The workspace of a turn that names none. */
export const DEFAULT_WORKSPACE_ID = "default"

/** Memory hits put into a turn's system prompt. */
export const MEMORY_HITS = 5

/** Model calls one turn may make (each after the previous one's tool calls ran). */
export const MAX_MODEL_CALLS = 6

/** An `effect/ai` prompt message as stored in the session's history (encoded JSON). */
const encodeMessage = Schema.encodeSync(Prompt.Message)

/** What `/new` and `/reset` answer. */
export const NEW_SESSION_REPLY = "Started a new session: the earlier conversation is no longer in context."

/** Messages `/compact` keeps as they are. */
export const COMPACT_KEEP = 4

/** A tool as offered to a turn's model (built-in or contributed). */
type OfferedTool = Tool.Any

/** Each tool's schema size for the context report (its JSON Schema's JSON plus its description), computed once. */
const schemaChars = new WeakMap<OfferedTool, number>()
const schemaCharsOf = (tool: OfferedTool): number => {
  let chars = schemaChars.get(tool)
  if (chars === undefined) {
    chars = JSON.stringify(Tool.getJsonSchema(tool)).length + (tool.description ?? "").length
    schemaChars.set(tool, chars)
  }
  return chars
}

/** Which session: the agent, channel and thread (and the workspace a new session gets). */
export interface SessionKey {
  readonly agentId: string
  readonly channel: string
  readonly threadId: string
  readonly workspaceId?: string | undefined
}

/** A turn's input once the request is checked. */
export interface TurnInput {
  readonly agentId: string
  readonly workspaceId: string
  readonly channel: string
  readonly threadId: string
  readonly message: string
  readonly runId?: string | undefined
}

/** `request` as a {@link TurnInput}; `InvalidRequest` naming the missing or mismatched field. */
export const turnInput = (request: AgentTurnRequest): Effect.Effect<TurnInput, InvalidRequest> => {
  const envelope = request.envelope
  const fromEnvelope = envelope === undefined
    ? {}
    : { channel: envelope.delivery.channel, thread_id: envelope.container.id, message: envelope.content.text }
  for (const field of ["channel", "thread_id", "message"] as const) {
    const given = request[field]
    const enveloped = fromEnvelope[field]
    if (envelope !== undefined && given !== undefined && enveloped !== undefined && given !== enveloped) {
      return Effect.fail(new InvalidRequest({ message: `${field} does not match the envelope's` }))
    }
  }
  const channel = request.channel ?? fromEnvelope.channel
  const threadId = request.thread_id ?? fromEnvelope.thread_id
  const message = request.message ?? fromEnvelope.message
  const missing = [channel === undefined && "channel", threadId === undefined && "thread_id", (message === undefined || message.trim() === "") && "message"]
    .filter((f): f is string => typeof f === "string")
  if (missing.length > 0) {
    return Effect.fail(new InvalidRequest({
      message: `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required (or an envelope that carries ${missing.length === 1 ? "it" : "them"})`
    }))
  }
  return Effect.succeed({
    agentId: request.agent_id ?? DEFAULT_AGENT_ID,
    workspaceId: request.workspace_id ?? DEFAULT_WORKSPACE_ID,
    channel: channel!,
    threadId: threadId!,
    message: message!
  })
}

/** The agent runtime. */
export class AgentRuntime extends Context.Service<AgentRuntime, {
  /** `POST /agent/turn`: one turn; `InvalidRequest` (400) or `AgentRuntimeError` (502). */
  readonly turn: (request: AgentTurnRequest) => Effect.Effect<AgentTurnResult, InvalidRequest | AgentRuntimeError>
  /** `session.send`: one turn of `(agent, channel, thread)`, answered `{session_id, assistant_message}`. */
  readonly send: (request: SessionSendRequest) => Effect.Effect<SessionSendResult, InvalidRequest | AgentRuntimeError>
  /** `GET /agent/status`. */
  readonly status: (agentId: string) => Effect.Effect<AgentStatus>
  /** The session of (agent, channel, thread), created when absent (`session_id` stable). */
  readonly sessionFor: (key: SessionKey) => Effect.Effect<AgentSessionRow>
  /**
   * The session of (agent, channel, thread) without creating it: the stored one, or the one the thread's first turn
   * is running in (stored with that turn's exchange); `undefined` when neither.
   */
  readonly findSession: (key: SessionKey) => Effect.Effect<AgentSessionRow | undefined>
  /** One turn of `message` in an existing session (subagents, ingress); as {@link turn} otherwise. */
  readonly turnIn: (session: AgentSessionRow, message: string, options?: { readonly runId?: string }) => Effect.Effect<AgentTurnResult, AgentRuntimeError>
  /** `/new`, `/reset`: forgets the session's history and summary. */
  readonly resetSession: (sessionId: string) => Effect.Effect<void>
  /** `/compact`: keeps the newest {@link COMPACT_KEEP} messages, the rest summarised; answers how many were dropped. */
  readonly compactSession: (sessionId: string) => Effect.Effect<number>
  /** `/model <ref>`: the session's model (`null`: back to `SVC_AGENT_MODEL`); `InvalidRequest` for an unknown provider. */
  readonly setSessionModel: (sessionId: string, model: string | null) => Effect.Effect<void, InvalidRequest>
  /** `/stop`: ends the session's running turn (its reply so far is kept); `false` when none runs. */
  readonly stopTurn: (sessionId: string) => Effect.Effect<boolean>
  /** How many turns of the session wait behind the running one (in this process). */
  readonly waiting: (sessionId: string) => Effect.Effect<number>
  /** `GET /context`: the agent's newest report; `NotFound` before its first turn. */
  readonly lastReport: (agentId: string) => Effect.Effect<ContextReport, NotFound>
  /** `GET /context/list`: reports newest first. */
  readonly listReports: (query: { readonly session_id?: string; readonly run_id?: string; readonly limit?: number }) => Effect.Effect<ReadonlyArray<ContextReport>>
  /** `GET /context/detail/:id`; `NotFound` for an unknown id. */
  readonly getReport: (id: string) => Effect.Effect<ContextReport, NotFound>
}>()("svc-gateway/agent/AgentRuntime") {
  /** Needs {@link AgentRepo}, {@link AgentModels}, `Memory`, `EventBus` and `GatewayConfig`. */
  static readonly layerNoDeps = Layer.effect(
    AgentRuntime,
    Effect.gen(function*() {
      const repo = yield* AgentRepo
      const models = yield* AgentModels
      const tools = yield* AgentTools
      const contributions = yield* AgentContributions
      const catalog = yield* Models
      const memory = yield* Memory
      const events = yield* EventBus
      const settings = yield* GatewayConfig
      const now = Effect.map(Clock.currentTimeMillis, isoTime)
      const locks = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
      /** The stop signal of each session's running turn. */
      const stops = new Map<string, Deferred.Deferred<void>>()
      /** History messages decoded once, not on every turn that puts them in its prompt. */
      const historyMessage = makeMessageCache()
      /** The toolkit of each offered set (by its tools' names, in offered order): built once, not per turn. */
      // Only the current contributions' toolkits are kept (a source going down and up must not grow it), at most 256.
      const toolkits = new Map<string, Toolkit.Toolkit<Record<string, OfferedTool>>>()
      let toolkitsVersion = -1
      const toolkitOf = (offered: ReadonlyArray<{ readonly tool: OfferedTool }>) => {
        if (toolkitsVersion !== contributions.version() || toolkits.size >= 256) {
          toolkits.clear()
          toolkitsVersion = contributions.version()
        }
        const key = offered.map((entry) => entry.tool.name).join(",")
        let toolkit = toolkits.get(key)
        if (toolkit === undefined) {
          toolkit = Toolkit.make(...offered.map((entry) => entry.tool)) as unknown as Toolkit.Toolkit<Record<string, OfferedTool>>
          toolkits.set(key, toolkit)
        }
        return toolkit
      }

      /** Runs `effect` alone among the turns of `sessionId` in this process. */
      const serialized = <A, E>(sessionId: string, effect: Effect.Effect<A, E>) =>
        Effect.suspend(() => {
          let lock = locks.get(sessionId)
          if (lock === undefined) {
            lock = { semaphore: Semaphore.makeUnsafe(1), users: 0 }
            locks.set(sessionId, lock)
          }
          const held = lock
          held.users++
          return held.semaphore.withPermits(1)(effect).pipe(Effect.ensuring(Effect.sync(() => {
            if (--held.users === 0) locks.delete(sessionId)
          })))
        })

      const newSession = (input: SessionKey, at: string): AgentSessionRow => ({
        session_id: crypto.randomUUID(),
        agent_id: input.agentId,
        channel: input.channel,
        thread_id: input.threadId,
        workspace_id: input.workspaceId ?? DEFAULT_WORKSPACE_ID,
        model: null,
        summary: null,
        created_at: at,
        last_turn_at: null
      })

      /**
       * Sessions a first turn created in memory and stores with its exchange (one commit), by thread: a second turn
       * of the thread in this process waits for the first one (same session id) instead of creating another, and a
       * command that needs the session stores that one.
       */
      const unstored = new Map<string, AgentSessionRow>()
      const threadKey = (agentId: string, channel: string, threadId: string) => `${agentId}\u0000${channel}\u0000${threadId}`

      const sessionOf = Effect.fnUntraced(function*(input: SessionKey) {
        const found = yield* repo.findSession(input.agentId, input.channel, input.threadId)
        if (found !== undefined) return found
        const running = unstored.get(threadKey(input.agentId, input.channel, input.threadId))
        return yield* repo.insertSession(running ?? newSession(input, yield* now))
      })

      const findSessionOf = Effect.fnUntraced(function*(input: SessionKey) {
        const found = yield* repo.findSession(input.agentId, input.channel, input.threadId)
        return found ?? unstored.get(threadKey(input.agentId, input.channel, input.threadId))
      })

      /**
       * How a turn's session gets stored. `pending`: not stored yet (a first turn's); `store` stores it now (before a
       * tool call refers to it, or when the turn fails) and answers the stored row (another writer's when one stored
       * the thread's session first).
       */
      interface SessionStore {
        pending: boolean
        readonly store: Effect.Effect<AgentSessionRow>
        /** Marks it stored (by the turn's own transaction) as `row`. */
        readonly stored: (row: AgentSessionRow) => void
      }
      const storeOf = (session: AgentSessionRow): SessionStore => {
        const key = threadKey(session.agent_id, session.channel, session.thread_id)
        const pending = unstored.get(key) === session
        let current = session
        const handle: SessionStore = {
          pending,
          stored: (row) => {
            handle.pending = false
            if (unstored.get(key) === session) unstored.delete(key)
            current = row
          },
          store: Effect.suspend(() =>
            handle.pending ? Effect.tap(repo.insertSession(session), (row) => Effect.sync(() => handle.stored(row))) : Effect.succeed(current)
          )
        }
        return handle
      }

      /** The agent's top memory hits for `message` (keyword, plus semantic when on) and how many each search found. */
      const memoryHits = (agentId: string, message: string) =>
        memory.searchWithStats({ query: message, filter: { agent_id: agentId }, limit: MEMORY_HITS }).pipe(
          Effect.map(({ result, stats }) => ({ hits: result.hits, stats })),
          Effect.orElseSucceed(() => ({ hits: [], stats: { keyword_hits: 0, semantic_hits: 0 } }))
        )

      /** One turn in `session`; `sessionStore.pending` when it is a first turn's session, not stored yet. */
      const runTurn = Effect.fnUntraced(function*(input: TurnInput, initial: AgentSessionRow, sessionStore: SessionStore) {
        // A first turn stores its session when it fails, as it would have been before the turn.
        return yield* Effect.onExit(
          turnBody(input, initial, sessionStore),
          (exit) => exit._tag === "Success" || !sessionStore.pending ? Effect.void : Effect.ignore(sessionStore.store)
        )
      })

      const turnBody = Effect.fnUntraced(function*(input: TurnInput, initial: AgentSessionRow, sessionStore: SessionStore) {
        let session = initial
        const fresh = sessionStore.pending
        const audience = { session_id: session.session_id, agent_id: input.agentId, channel: input.channel, thread_id: input.threadId }
        const at = yield* now
        if (/^\/(new|reset)\s*$/.test(input.message.trim())) {
          session = yield* sessionStore.store
          yield* repo.clearHistory(session.session_id)
          yield* repo.touch(session.session_id, { last_turn_at: at })
          return { reply: NEW_SESSION_REPLY, session_id: session.session_id, used_tools: [], memory_written: false }
        }
        const modelRef = session.model ?? settings.agentModel
        // A session this turn creates has no history and no waiting tool calls: nothing to read.
        const history = fresh
          ? { kept: [], dropped: 0, summary: undefined }
          : yield* loadHistory(repo, session.session_id, settings.agentHistoryTokens)
        const { hits, stats } = yield* memoryHits(input.agentId, input.message)
        const sections: Array<{ readonly id: string; readonly text: string }> = [
          {
            id: "identity",
            text: `You are agent "${input.agentId}", answering on channel "${input.channel}" (thread "${input.threadId}"). ` +
              "Your tools and actions are governed by the gateway's policy."
          },
          ...(hits.length > 0
            ? [{
              id: "memory",
              text: "Relevant memory:\n" + hits.map((hit) => `- (${hit.kind}) ${hit.snippet ?? hit.memory_item_id}`).join("\n")
            }]
            : []),
          ...(history.summary !== undefined ? [{ id: "history_summary", text: history.summary }] : [])
        ]
        let toolContext: ToolContext = {
          agentId: input.agentId,
          workspaceId: session.workspace_id,
          sessionId: session.session_id,
          sessionKey: `agent:${input.agentId}:${input.channel}:${input.threadId}`
        }
        const toolState: TurnToolState = { calls: [], waiting: [], memoryWritten: false }
        const settled = fresh ? [] : yield* tools.settle(toolContext, toolState)
        if (settled.length > 0) {
          sections.push({
            id: "resolved_tool_calls",
            text: "Tool calls of earlier turns that waited for an operator, now resolved:\n" +
              settled.map((call) =>
                call.outcome === "approved"
                  ? `- ${call.tool} (approval ${call.approval_id}) was approved and ran; result: ${JSON.stringify(call.result)}`
                  : `- ${call.tool} (approval ${call.approval_id}) was ${call.outcome}; it did not run`
              ).join("\n")
          })
        }
        const offered = yield* tools.offered(input.agentId, session.workspace_id)
        const system = sections.map((s) => s.text).join("\n\n")
        const userMessage = { role: "user" as const, content: [{ type: "text" as const, text: input.message }] }
        const basePrompt = Prompt.fromMessages([
          Prompt.makeMessage("system", { content: system }),
          ...history.kept.map((row) => historyMessage(row.message)),
          Prompt.makeMessage("user", { content: [Prompt.makePart("text", { text: input.message })] })
        ])

        const { languageModel, provider } = yield* models.forTurn({ agentId: input.agentId, sessionId: session.session_id, modelRef })
        const toolkit = toolkitOf(offered)
        /** A tool call of the model through the policy gate; a tool not offered, or bad arguments, is a failure it sees. */
        const resolve = (call: { readonly id: string; readonly name: string; readonly params: unknown }) => {
          const entry = offered.find((candidate) => candidate.tool.name === call.name)
          const answer = (isFailure: boolean, result: unknown) => ({ type: "tool-result" as const, id: call.id, name: call.name, isFailure, result })
          if (entry === undefined) {
            const toolId = toolIdOf(call.name) ?? contributions.tools().find((tool) => tool.tool.name === call.name)?.toolId ??
              (call.name.startsWith("node_") ? NODE_TOOL_POLICY_ID : "unknown")
            toolState.calls.push({ tool: call.name, tool_id: toolId, decision: "deny", outcome: "not_offered" })
            return Effect.succeed(answer(true, { error: "policy_denied", message: `tool ${call.name} is not available to this agent` }))
          }
          return Schema.decodeUnknownEffect(entry.tool.parametersSchema as Schema.Decoder<Record<string, unknown>>)(call.params).pipe(
            Effect.matchEffect({
              onFailure: (error) => Effect.succeed(answer(true, { error: "invalid_request", message: `${call.name}: ${error.message}` })),
              onSuccess: (params) =>
                // A tool may refer to the session (approvals, waiting calls, memory provenance): stored first.
                Effect.andThen(storeForTools, () => tools.call(entry.tool.name, params, toolContext, toolState)).pipe(
                  Effect.match({ onFailure: (failure) => answer(true, failure), onSuccess: (result) => answer(false, result) })
                )
            })
          )
        }
        const storeForTools = Effect.suspend(() =>
          sessionStore.pending
            ? Effect.map(sessionStore.store, (stored) => {
              session = stored
              toolContext = { ...toolContext, sessionId: stored.session_id }
            })
            : Effect.void
        )
        yield* events.publish(TypingStarted, audience)
        const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0, usd_micros: 0 }
        const stop = yield* Deferred.make<void>()
        stops.set(session.session_id, stop)
        /** One model call: its text (streamed out as `message.delta`) and its response parts. */
        const step = (prompt: Prompt.Prompt) => {
          const parts: Array<Response.AnyPart> = []
          // The toolkit even when empty: a model that calls a tool it was not offered gets `not_offered`, not a decode failure.
          const stream = languageModel.streamText({ prompt, toolkit, disableToolCallResolution: true, toolCallValidation: "deferred" })
          return (stream as Stream.Stream<Response.AnyPart, unknown>).pipe(
            Stream.interruptWhen(Deferred.await(stop)),
            Stream.runFoldEffect(() => "", (text, part): Effect.Effect<string> => {
              parts.push(part)
              if (part.type === "text-delta") {
                return Effect.as(events.publish(MessageDelta, { ...audience, delta: part.delta }), text + part.delta)
              }
              if (part.type === "finish") {
                usage.input_tokens += part.usage.inputTokens.total ?? 0
                usage.output_tokens += part.usage.outputTokens.total ?? 0
                usage.total_tokens = usage.input_tokens + usage.output_tokens
              }
              return Effect.succeed(text)
            }),
            Effect.map((text) => ({ text, parts }))
          )
        }
        const loop = Effect.gen(function*() {
          let prompt = basePrompt
          let text = ""
          for (let i = 0; i < MAX_MODEL_CALLS; i++) {
            const result = yield* step(prompt)
            text += result.text
            const calls = result.parts.filter((part) => part.type === "tool-call" && part.providerExecuted !== true) as Array<
              { readonly id: string; readonly name: string; readonly params: unknown }
            >
            prompt = Prompt.concat(prompt, Prompt.fromResponseParts(result.parts))
            if (calls.length === 0) break
            const results = yield* Effect.forEach(calls, resolve)
            prompt = Prompt.concat(prompt, Prompt.make([{ role: "tool", content: results }]))
            if (toolState.waiting.length > 0 || (yield* Deferred.isDone(stop))) break
          }
          return { text, prompt }
        })
        const answered = yield* loop.pipe(
          Effect.mapError((error) => provider.toRuntimeError(error)),
          Effect.ensuring(Effect.andThen(
            Effect.sync(() => stops.get(session.session_id) === stop && stops.delete(session.session_id)),
            events.publish(TypingStopped, audience)
          ))
        )
        const waitingNote = toolState.waiting.length === 0 ? "" : (answered.text.length > 0 ? "\n\n" : "") +
          toolState.waiting.map((w) => `Waiting for an operator to approve ${w.tool} on "${w.match_target}" (approval ${w.approval_id}).`).join("\n")
        const reply = answered.text + waitingNote
        // The messages this turn added after the user's (tool calls and their results, the model's text).
        const added = answered.prompt.content.slice(basePrompt.content.length).map((message) => encodeMessage(message))
        const used_tools = [...new Set(toolState.calls.map((call) => call.tool))]

        const generated_at = yield* now
        // The built-in models cost nothing (the catalog's `builtin/*` price is 0): no catalog read for them.
        const price = provider.provider === "builtin" ? undefined : yield* catalog.price(modelRef)
        usage.usd_micros = price === undefined ? 0 : usdMicros(price, usage)
        const schemaSizes = offered
          .map((entry) => ({ id: entry.tool.name, chars: schemaCharsOf(entry.tool) }))
          .sort((a, b) => b.chars - a.chars)
        const report: ContextReport = {
          context_report_id: crypto.randomUUID(),
          generated_at,
          session_id: session.session_id,
          channel: input.channel,
          thread_id: input.threadId,
          agent_id: input.agentId,
          workspace_id: session.workspace_id,
          model: modelRef,
          system_prompt: { chars: system.length, sections: sections.map((s) => ({ id: s.id, chars: s.text.length })) },
          user_parts: [{ id: "message", chars: input.message.length }],
          selected_tools: offered.map((entry) => entry.tool.name),
          tool_schema_top: schemaSizes.slice(0, 5),
          tool_schema_total_chars: schemaSizes.reduce((sum, entry) => sum + entry.chars, 0),
          enabled_skills: [],
          mcp_servers: contributions.health().filter((h) => h.source.startsWith("mcp:") && h.status === "ready").map((h) => h.source.slice(4)),
          memory: { keyword_hits: stats.keyword_hits, semantic_hits: stats.semantic_hits },
          tool_calls: toolState.calls,
          injected_files: [],
          history: { messages: history.kept.length, dropped: history.dropped },
          usage
        }
        const reportRow = (sessionId: string): AgentContextReportRow => ({
          context_report_id: report.context_report_id,
          session_id: sessionId,
          agent_id: input.agentId,
          run_id: input.runId ?? null,
          model: modelRef,
          ...usage,
          report: { ...report, session_id: sessionId },
          generated_at
        })
        const summary = history.summary ?? null
        session = yield* repo.transaction(Effect.gen(function*() {
          // A first turn's session is stored with its exchange; the thread's when another writer stored one first.
          const created = sessionStore.pending ? yield* repo.createSession({ ...session, summary, last_turn_at: generated_at }) : undefined
          const target = created ?? (sessionStore.pending
            ? (yield* repo.findSession(session.agent_id, session.channel, session.thread_id)) ?? session
            : session)
          yield* repo.append(target.session_id, [
            { role: "user", message: JSON.stringify(userMessage), chars: input.message.length, created_at: at },
            ...added.map((message) => ({ role: message.role as "assistant" | "tool", message: JSON.stringify(message), chars: JSON.stringify(message.content).length, created_at: generated_at })),
            ...(waitingNote.length > 0
              ? [{ role: "assistant" as const, message: JSON.stringify({ role: "assistant", content: [{ type: "text", text: waitingNote.trim() }] }), chars: waitingNote.length, created_at: generated_at }]
              : [])
          ])
          if (created === undefined) yield* repo.touch(target.session_id, { last_turn_at: generated_at, summary })
          yield* repo.insertReport(reportRow(target.session_id))
          return target
        }))
        if (sessionStore.pending) sessionStore.stored(session)
        yield* events.publish(MessageFinal, { ...audience, session_id: session.session_id, content: reply, used_tools })
        yield* events.publish(ContextReportCreated, {
          context_report_id: report.context_report_id,
          session_id: session.session_id,
          agent_id: input.agentId
        })
        return { reply, session_id: session.session_id, used_tools, memory_written: toolState.memoryWritten }
      })

      const turnOf = Effect.fnUntraced(function*(input: TurnInput) {
        const found = yield* repo.findSession(input.agentId, input.channel, input.threadId)
        if (found !== undefined) return yield* serialized(found.session_id, runTurn(input, found, storeOf(found)))
        // A new thread: its session is stored by the turn's own transaction (see `unstored`).
        const key = threadKey(input.agentId, input.channel, input.threadId)
        let session = unstored.get(key)
        if (session === undefined) {
          session = newSession(input, yield* now)
          unstored.set(key, session)
        }
        const row = session
        // Whether it is still unstored is decided once the turn holds the session (an earlier turn may have stored it).
        return yield* serialized(row.session_id, Effect.suspend(() => runTurn(input, row, storeOf(row))))
      })

      const turnIn = (session: AgentSessionRow, message: string, options?: { readonly runId?: string }) =>
        serialized(
          session.session_id,
          runTurn({
            agentId: session.agent_id,
            workspaceId: session.workspace_id,
            channel: session.channel,
            threadId: session.thread_id,
            message,
            runId: options?.runId
          }, session, storeOf(session))
        )

      const compactSession = Effect.fn("AgentRuntime.compactSession")(function*(sessionId: string) {
        const rows = yield* repo.history(sessionId)
        if (rows.length <= COMPACT_KEEP) return 0
        // Budget 0 for everything but the newest COMPACT_KEEP: the summary of trimHistory names what goes.
        const kept = trimHistory(rows.slice(0, rows.length - COMPACT_KEEP), 0)
        const dropped = kept.dropped
        yield* repo.transaction(Effect.gen(function*() {
          yield* repo.dropOldest(sessionId, dropped)
          yield* repo.touch(sessionId, { summary: kept.summary ?? null })
        }))
        return dropped
      })

      const setSessionModel = Effect.fn("AgentRuntime.setSessionModel")(function*(sessionId: string, model: string | null) {
        if (model !== null) {
          yield* Effect.mapError(providerFor(model), (error) => new InvalidRequest({ message: error.message }))
        }
        yield* repo.setModel(sessionId, model)
      })

      const turn = Effect.fn("AgentRuntime.turn")(function*(request: AgentTurnRequest) {
        return yield* turnOf(yield* turnInput(request))
      })

      const send = Effect.fn("AgentRuntime.send")(function*(request: SessionSendRequest) {
        const result = yield* turnOf({
          agentId: request.agent_id ?? DEFAULT_AGENT_ID,
          workspaceId: DEFAULT_WORKSPACE_ID,
          channel: request.channel,
          threadId: request.thread_id,
          message: request.content
        })
        return { session_id: result.session_id, assistant_message: result.reply }
      })

      const status = Effect.fn("AgentRuntime.status")(function*(agentId: string) {
        const model = settings.agentModel
        const readiness = yield* models.readiness(agentId, model)
        const figures = yield* repo.agentFigures(agentId)
        const offered = yield* tools.offered(agentId, DEFAULT_WORKSPACE_ID)
        return {
          status: "ok" as const,
          agent_id: agentId,
          enabled: true,
          model,
          provider: { id: readiness.provider, ready: readiness.ready, ...(readiness.reason !== undefined ? { reason: readiness.reason } : {}) },
          tools: offered.map((entry) => entry.tool.name),
          tool_sources: contributions.health(),
          session_count: figures.sessions,
          last_turn_at: figures.last_turn_at
        }
      })

      const noReport = () => new NotFound({ message: "context report not found" })

      return AgentRuntime.of({
        turn,
        send,
        status,
        sessionFor: sessionOf,
        findSession: findSessionOf,
        turnIn,
        resetSession: (sessionId) => repo.clearHistory(sessionId),
        compactSession,
        setSessionModel,
        stopTurn: (sessionId) =>
          Effect.suspend(() => {
            const stop = stops.get(sessionId)
            return stop === undefined ? Effect.succeed(false) : Effect.as(Deferred.succeed(stop, undefined), true)
          }),
        waiting: (sessionId) => Effect.sync(() => Math.max(0, (locks.get(sessionId)?.users ?? 0) - 1)),
        lastReport: (agentId) =>
          Effect.flatMap(repo.lastReport(agentId), (row) => (row === undefined ? Effect.fail(noReport()) : Effect.succeed(row.report))),
        listReports: (query) =>
          Effect.map(
            repo.listReports({ session_id: query.session_id, run_id: query.run_id, limit: query.limit ?? 50 }),
            (rows) => rows.map((row) => row.report)
          ),
        getReport: (id) =>
          Effect.flatMap(repo.getReport(id), (row) => (row === undefined ? Effect.fail(noReport()) : Effect.succeed(row.report)))
      })
    })
  )

  /**
   * Wired: storage, models, the memory service and the event bus; needs `AuthProfiles` (the descriptor provides
   * it), `GatewayConfig`, a `SqlClient` and `DomainEvents`.
   */
  static readonly layer = AgentRuntime.layerNoDeps.pipe(
    Layer.provide(AgentRepo.layer),
    Layer.provide(AgentModels.layer),
    Layer.provide(AgentTools.layer.pipe(
      Layer.provide(AgentContributions.layer),
      Layer.provide(PolicyBundle.layer),
      Layer.provide(Approvals.layer),
      Layer.provide(Work.layer),
      Layer.provide(WorkflowLive),
      Layer.provide(Memory.layer)
    )),
    Layer.provide(Memory.layer),
    Layer.provide(Models.layer),
    Layer.provide(EventBus.layer),
    Layer.provide(AgentContributions.layer)
  )
}
