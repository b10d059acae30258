/**
 * The agent runtime (issue 25 §2–4; gateway-api.md "Agent runtime",
 * WebSocket `session.send`; reference §7.9; docs/agent.md): one turn loads
 * the session (one per agent, channel and thread; `session_id` stable), its
 * history trimmed to `SVC_AGENT_HISTORY_TOKENS` (history.ts) and the agent's
 * top memory hits for the message (services/memory, keyword search), calls
 * the session's model (models.ts) streaming, and stores the exchange and a
 * context report.
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
import { Clock, Context, Deferred, Effect, Layer, Semaphore, Stream } from "effect"
import { Prompt } from "effect/ai"
import { GatewayConfig } from "../../layers/config.ts"
import { Memory } from "../memory/Memory.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { type AgentContextReportRow, AgentRepo, type AgentSessionRow } from "./AgentRepo.ts"
import { AgentRuntimeError, InvalidRequest, NotFound } from "./errors.ts"
import { ContextReportCreated, MessageDelta, MessageFinal, TypingStarted, TypingStopped } from "./events.ts"
import { trimHistory } from "./history.ts"
import { AgentModels } from "./models.ts"
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

/** What `/new` and `/reset` answer. */
export const NEW_SESSION_REPLY = "Started a new session: the earlier conversation is no longer in context."

/** Messages `/compact` keeps as they are. */
export const COMPACT_KEEP = 4

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
      const memory = yield* Memory
      const events = yield* EventBus
      const settings = yield* GatewayConfig
      const now = Effect.map(Clock.currentTimeMillis, isoTime)
      const locks = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
      /** The stop signal of each session's running turn. */
      const stops = new Map<string, Deferred.Deferred<void>>()

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

      const sessionOf = Effect.fnUntraced(function*(input: SessionKey) {
        const found = yield* repo.findSession(input.agentId, input.channel, input.threadId)
        if (found !== undefined) return found
        return yield* repo.insertSession({
          session_id: crypto.randomUUID(),
          agent_id: input.agentId,
          channel: input.channel,
          thread_id: input.threadId,
          workspace_id: input.workspaceId ?? DEFAULT_WORKSPACE_ID,
          model: null,
          summary: null,
          created_at: yield* now,
          last_turn_at: null
        })
      })

      /** The agent's top memory hits for `message` (keyword, plus semantic when on) and how many each search found. */
      const memoryHits = (agentId: string, message: string) =>
        memory.searchWithStats({ query: message, filter: { agent_id: agentId }, limit: MEMORY_HITS }).pipe(
          Effect.map(({ result, stats }) => ({ hits: result.hits, stats })),
          Effect.orElseSucceed(() => ({ hits: [], stats: { keyword_hits: 0, semantic_hits: 0 } }))
        )

      const runTurn = Effect.fnUntraced(function*(input: TurnInput, session: AgentSessionRow) {
        const audience = { session_id: session.session_id, agent_id: input.agentId, channel: input.channel, thread_id: input.threadId }
        const at = yield* now
        if (/^\/(new|reset)\s*$/.test(input.message.trim())) {
          yield* repo.clearHistory(session.session_id)
          yield* repo.touch(session.session_id, { last_turn_at: at })
          return { reply: NEW_SESSION_REPLY, session_id: session.session_id, used_tools: [], memory_written: false }
        }
        const modelRef = session.model ?? settings.agentModel
        const history = trimHistory(yield* repo.history(session.session_id), settings.agentHistoryTokens)
        const { hits, stats } = yield* memoryHits(input.agentId, input.message)
        const sections = [
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
        const system = sections.map((s) => s.text).join("\n\n")
        const userMessage = { role: "user" as const, content: [{ type: "text" as const, text: input.message }] }
        const prompt = Prompt.make([
          { role: "system", content: system },
          ...history.kept.map((row) => JSON.parse(row.message) as Prompt.MessageEncoded),
          userMessage
        ])

        const { languageModel, provider } = yield* models.forTurn({ agentId: input.agentId, sessionId: session.session_id, modelRef })
        yield* events.publish(TypingStarted, audience)
        const usage = { input_tokens: 0, output_tokens: 0, total_tokens: 0 }
        const stop = yield* Deferred.make<void>()
        stops.set(session.session_id, stop)
        const reply = yield* languageModel.streamText({ prompt }).pipe(
          Stream.interruptWhen(Deferred.await(stop)),
          Stream.runFoldEffect(() => "", (text, part) => {
            if (part.type === "text-delta") {
              return Effect.as(events.publish(MessageDelta, { ...audience, delta: part.delta }), text + part.delta)
            }
            if (part.type === "finish") {
              usage.input_tokens = part.usage.inputTokens.total ?? 0
              usage.output_tokens = part.usage.outputTokens.total ?? 0
              usage.total_tokens = usage.input_tokens + usage.output_tokens
            }
            return Effect.succeed(text)
          }),
          Effect.mapError((error) => provider.toRuntimeError(error)),
          Effect.ensuring(Effect.andThen(
            Effect.sync(() => stops.get(session.session_id) === stop && stops.delete(session.session_id)),
            events.publish(TypingStopped, audience)
          ))
        )

        const assistantMessage = { role: "assistant" as const, content: [{ type: "text" as const, text: reply }] }
        const generated_at = yield* now
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
          selected_tools: [],
          tool_schema_top: [],
          tool_schema_total_chars: 0,
          enabled_skills: [],
          mcp_servers: [],
          memory: { keyword_hits: stats.keyword_hits, semantic_hits: stats.semantic_hits },
          tool_calls: [],
          injected_files: [],
          history: { messages: history.kept.length, dropped: history.dropped },
          usage
        }
        const row: AgentContextReportRow = {
          context_report_id: report.context_report_id,
          session_id: session.session_id,
          agent_id: input.agentId,
          run_id: input.runId ?? null,
          model: modelRef,
          ...usage,
          report,
          generated_at
        }
        yield* repo.transaction(Effect.gen(function*() {
          yield* repo.append(session.session_id, [
            { role: "user", message: JSON.stringify(userMessage), chars: input.message.length, created_at: at },
            { role: "assistant", message: JSON.stringify(assistantMessage), chars: reply.length, created_at: generated_at }
          ])
          yield* repo.touch(session.session_id, { last_turn_at: generated_at, summary: history.summary ?? null })
          yield* repo.insertReport(row)
        }))
        yield* events.publish(MessageFinal, { ...audience, content: reply, used_tools: [] })
        yield* events.publish(ContextReportCreated, {
          context_report_id: report.context_report_id,
          session_id: session.session_id,
          agent_id: input.agentId
        })
        return { reply, session_id: session.session_id, used_tools: [], memory_written: false }
      })

      const turnOf = (input: TurnInput) =>
        Effect.flatMap(sessionOf(input), (session) => serialized(session.session_id, runTurn(input, session)))

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
          }, session)
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
        return {
          status: "ok" as const,
          agent_id: agentId,
          enabled: true,
          model,
          provider: { id: readiness.provider, ready: readiness.ready, ...(readiness.reason !== undefined ? { reason: readiness.reason } : {}) },
          tools: [],
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
    Layer.provide(Memory.layer),
    Layer.provide(EventBus.layer)
  )
}
