/**
 * Subagents (issue 25 §3; reference §5.3 `subagent.*`; docs/agent.md
 * "Subagents"): agents an operator (or a plan) spawns for one piece of work,
 * each with its own session, talked to asynchronously.
 *
 * - `spawn` stores a subagent `running` in its WorkScope with session key
 *   `agent:<agent_id>:subagent:<subagent_id>` and lane `subagent`
 *   (`subagent.spawned`).
 * - `send` writes the message to the durable queue (`agent_subagent_messages`,
 *   `queued`) and answers `{accepted: true}` at once. The worker (below) runs
 *   the turn in the subagent's own session: `AgentRuntime.sessionFor` with
 *   channel {@link SUBAGENT_CHANNEL} and thread id the subagent id, then
 *   `AgentRuntime.turnIn`. The reply goes out as `subagent.output {…,
 *   kind: "final", content}`; a failed turn marks the subagent `failed`
 *   (`subagent.updated` with the error), and its later messages are
 *   cancelled.
 * - `close`: `running` → `closing` (`subagent.updated`): its queued messages
 *   are cancelled and a turn running in this process is stopped; then
 *   `closed` (`subagent.closed`). Closing a `closed` or `failed` subagent
 *   answers it as it is (an idempotent no-op, no event).
 * - A subagent of another WorkScope reads as unknown (`not_found`).
 *
 * **The worker** is a background job of this layer's scope
 * (`BackgroundJobs.singleton` "agent.subagents"; only with
 * `SVC_AGENT_ENABLED`): one fiber per subagent with pending messages drains
 * them in `message_id` order, one turn at a time; subagents run in
 * parallel. On start it picks up every message left `queued` or `running`
 * by a previous process, so a gateway stopped during a subagent turn runs
 * that turn again when it starts (at least once: a turn whose reply was
 * stored just before the stop runs again). A message started
 * {@link MAX_ATTEMPTS} times without finishing fails. A message accepted by
 * another instance on the same database is picked up at the next look,
 * every {@link RESCAN_INTERVAL}.
 *
 * @module
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Layer } from "effect"
import { GatewayConfig } from "../../../layers/config.ts"
import { BackgroundJobs } from "../../backplane/BackgroundJobs.ts"
import { clampLimit, cursorCodec, pageOf } from "../../shared/cursor.ts"
import { Wakes } from "../../backplane/wakes.ts"
import { makeKeyedWorker } from "../../shared/keyedWorker.ts"
import { isUuid } from "../../shared/schemas.ts"
import { isoTime } from "../../shared/time.ts"
import { EventBus } from "../../ws-sessions/EventBus.ts"
import type { GatewayEvent } from "../../ws-sessions/GatewayEvent.ts"
import { AgentRepo } from "../AgentRepo.ts"
import { AgentRuntime } from "../AgentRuntime.ts"
import { InvalidRequest, InvalidState, NotFound } from "../errors.ts"
import { SubagentClosed, SubagentOutput, SubagentSpawned, SubagentUpdated } from "./events.ts"
import {
  SUBAGENT_LANE,
  type SubagentCloseRequest,
  type SubagentGetRequest,
  type SubagentListRequest,
  type SubagentListResult,
  type SubagentResult,
  type SubagentScope,
  type SubagentSendRequest,
  type SubagentSendResult,
  type SubagentSpawnRequest
} from "./schema.ts"
import { type SubagentMessageRow, type SubagentRow, SubagentsRepo, toSubagent } from "./SubagentsRepo.ts"

/** The channel of a subagent's session (its thread id is the subagent id). */
export const SUBAGENT_CHANNEL = "subagent"

/** The name of the worker job (services/backplane/BackgroundJobs.ts). */
export const SUBAGENTS_JOB = "agent.subagents"

/** Starts of one message (the first and the runs after restarts) before it fails. */
export const MAX_ATTEMPTS = 3

/** How often the worker looks for messages it was not told of (accepted by another instance). */
export const RESCAN_INTERVAL = Duration.seconds(30)

/** `agent:<agent_id>:subagent:<subagent_id>`. */
export const subagentSessionKey = (agentId: string, subagentId: string): string => `agent:${agentId}:subagent:${subagentId}`

/** Subagent ids are uuids: the cursors of `subagent.list`. */
const subagentCursor = cursorCodec(isUuid)

const sameScope = (row: SubagentRow, scope: SubagentScope) =>
  row.tenant_id === scope.tenant_id && row.agent_id === scope.agent_id && row.workspace_id === scope.workspace_id

/** The message of a failed turn's cause: the error's own message, never a stack. */
const causeMessage = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message
  }
  return Cause.pretty(cause).split("\n")[0] ?? "the turn failed"
}

/** The subagents service: one method per `subagent.*` request type. */
export class Subagents extends Context.Service<Subagents, {
  /** `subagent.spawn`: a new subagent, `running`; `subagent.spawned`. */
  readonly spawn: (request: SubagentSpawnRequest) => Effect.Effect<SubagentResult>
  /** `subagent.list`: one page of the scope's subagents by `created_at`; `InvalidRequest` for a cursor this gateway did not issue. */
  readonly list: (request: SubagentListRequest) => Effect.Effect<SubagentListResult, InvalidRequest>
  /** `subagent.get`; `NotFound` when unknown in the scope. */
  readonly get: (request: SubagentGetRequest) => Effect.Effect<SubagentResult, NotFound>
  /**
   * `subagent.send`: queues `content` for the subagent's next turn and answers at once; `NotFound`, or
   * `InvalidState` when the subagent is not `running`.
   */
  readonly send: (request: SubagentSendRequest) => Effect.Effect<SubagentSendResult, NotFound | InvalidState>
  /** `subagent.close`: `closing`, then `closed`; a `closed` or `failed` subagent is answered as it is. `NotFound`. */
  readonly close: (request: SubagentCloseRequest) => Effect.Effect<SubagentResult, NotFound>
}>()("svc-gateway/agent/Subagents") {
  /**
   * Needs {@link SubagentsRepo}, `AgentRepo` (a subagent's session), `AgentRuntime`, `EventBus` and
   * `GatewayConfig`; starts the worker in the layer's scope when `agentEnabled`.
   */
  static readonly layerNoDeps = Layer.effect(
    Subagents,
    Effect.gen(function*() {
      const repo = yield* SubagentsRepo
      const sessions = yield* AgentRepo
      const runtime = yield* AgentRuntime
      const events = yield* EventBus
      const settings = yield* GatewayConfig
      const jobs = yield* BackgroundJobs
      const now = Effect.map(Clock.currentTimeMillis, isoTime)

      const announce = <P extends GatewayEvent["payload"]>(event: GatewayEvent<string, P>, payload: P["Type"], row: SubagentRow) =>
        Effect.asVoid(events.publish(event, payload, { kind: "key", key: row.session_key, lane: SUBAGENT_LANE }))

      const notFound = () => new NotFound({ message: "subagent not found" })
      const inScope = (scope: SubagentScope, id: string) =>
        Effect.flatMap(repo.get(id), (row) => (row !== undefined && sameScope(row, scope) ? Effect.succeed(row) : Effect.fail(notFound())))

      const sessionOf = (row: SubagentRow) =>
        runtime.sessionFor({ agentId: row.agent_id, channel: SUBAGENT_CHANNEL, threadId: row.subagent_id, workspaceId: row.workspace_id })

      // -- the worker ------------------------------------------------------------------------------------------

      /** Ends a pending message without a turn (its subagent is no longer running, or it was started too often). */
      const skip = Effect.fnUntraced(function*(message: SubagentMessageRow, error: string) {
        yield* repo.finish(message.message_id, { status: "cancelled", error }, yield* now)
      })

      /** Marks the subagent failed (from running or closing) with the message failed; `subagent.updated`. */
      const fail = Effect.fnUntraced(function*(row: SubagentRow, message: SubagentMessageRow, error: string) {
        const at = yield* now
        const failed = yield* repo.transaction(Effect.gen(function*() {
          yield* repo.finish(message.message_id, { status: "failed", error }, at)
          return yield* repo.move(row.subagent_id, { from: ["running", "closing"], to: "failed", at })
        }))
        if (failed !== undefined) yield* announce(SubagentUpdated, { subagent: toSubagent(failed), error }, failed)
      })

      /** One message: its turn in the subagent's session, then the output (or the failure). */
      const runMessage = Effect.fnUntraced(function*(message: SubagentMessageRow) {
        const row = yield* repo.get(message.subagent_id)
        if (row === undefined || row.status !== "running") {
          return yield* skip(message, `the subagent is ${row?.status ?? "gone"}`)
        }
        if (message.attempts >= MAX_ATTEMPTS) {
          return yield* fail(row, message, `the turn was started ${message.attempts} times without finishing (the gateway stopped during each)`)
        }
        const started = yield* now
        if (!(yield* repo.claim(message.message_id, started))) return
        yield* repo.heartbeat(row.subagent_id, started)
        const exit = yield* Effect.exit(Effect.flatMap(sessionOf(row), (session) => runtime.turnIn(session, message.content)))
        if (Exit.isFailure(exit)) {
          // Interrupted (the gateway is stopping): the message stays `running` for the next start.
          if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
          return yield* fail(row, message, causeMessage(exit.cause))
        }
        const reply = exit.value.reply
        const at = yield* now
        yield* repo.transaction(Effect.andThen(
          repo.finish(message.message_id, { status: "done", reply }, at),
          repo.heartbeat(row.subagent_id, at)
        ))
        yield* announce(SubagentOutput, {
          subagent_id: row.subagent_id,
          tenant_id: row.tenant_id,
          agent_id: row.agent_id,
          workspace_id: row.workspace_id,
          session_key: row.session_key,
          lane: SUBAGENT_LANE,
          message_id: message.message_id,
          kind: "final",
          content: reply
        }, row)
      })

      /** Each subagent's messages, one turn at a time (as the accepting `send`s wake it, and at each look). */
      const queues = yield* makeKeyedWorker({
        name: "subagent worker",
        keyLabel: "subagent_id",
        next: repo.nextMessage,
        run: (_subagentId, message) => runMessage(message),
        pendingKeys: repo.withPendingMessages,
        rescanInterval: RESCAN_INTERVAL,
        wakes: yield* Wakes
      })

      if (settings.agentEnabled) yield* jobs.singleton({ name: SUBAGENTS_JOB, run: queues.worker })

      // -- the requests ----------------------------------------------------------------------------------------

      const spawn = Effect.fn("Subagents.spawn")(function*(request: SubagentSpawnRequest) {
        const subagentId = crypto.randomUUID()
        const row = yield* repo.insert({
          subagent_id: subagentId,
          tenant_id: request.tenant_id,
          agent_id: request.agent_id,
          workspace_id: request.workspace_id,
          work_item_id: request.work_item_id ?? null,
          work_item_task_id: request.work_item_task_id ?? null,
          execution_profile: request.execution_profile,
          session_key: subagentSessionKey(request.agent_id, subagentId),
          lane: SUBAGENT_LANE,
          status: "running",
          created_at: yield* now,
          last_heartbeat_at: null,
          updated_at: null,
          closed_at: null
        })
        const subagent = toSubagent(row)
        yield* announce(SubagentSpawned, { subagent }, row)
        return { subagent }
      })

      const list = Effect.fn("Subagents.list")(function*(request: SubagentListRequest) {
        const after = request.cursor === undefined ? undefined : subagentCursor.decode(request.cursor)
        if (request.cursor !== undefined && after === undefined) return yield* new InvalidRequest({ message: "invalid cursor" })
        const limit = clampLimit(request.limit)
        const rows = yield* repo.list(request, { statuses: request.statuses, after, limit: limit + 1 })
        const page = pageOf(subagentCursor, rows, limit, (r) => [r.created_at, r.subagent_id])
        const subagents = page.rows.map(toSubagent)
        return page.next_cursor === undefined ? { subagents } : { subagents, next_cursor: page.next_cursor }
      })

      const get = Effect.fn("Subagents.get")(function*(request: SubagentGetRequest) {
        return { subagent: toSubagent(yield* inScope(request, request.subagent_id)) }
      })

      const send = Effect.fn("Subagents.send")(function*(request: SubagentSendRequest) {
        // Accepting is the queued row: checked and written in one transaction, the worker told after the commit.
        // (A message that a concurrent close beats is cancelled by the worker: the subagent is no longer running.)
        const row = yield* repo.transaction(Effect.gen(function*() {
          const row = yield* inScope(request, request.subagent_id)
          if (row.status !== "running") {
            return yield* new InvalidState({ message: `subagent is ${row.status}: only a running subagent accepts messages` })
          }
          yield* repo.enqueue(row.subagent_id, request.content, yield* now)
          return row
        }))
        yield* queues.wake(row.subagent_id)
        return { accepted: true as const }
      })

      const close = Effect.fn("Subagents.close")(function*(request: SubagentCloseRequest) {
        const row = yield* inScope(request, request.subagent_id)
        if (row.status === "closed" || row.status === "failed") return { subagent: toSubagent(row) }
        let current = row
        if (row.status === "running") {
          const closing = yield* repo.move(row.subagent_id, { from: ["running"], to: "closing", at: yield* now })
          if (closing === undefined) return { subagent: toSubagent((yield* repo.get(row.subagent_id)) ?? row) }
          current = closing
          yield* announce(SubagentUpdated, { subagent: toSubagent(closing) }, closing)
        }
        yield* repo.cancelQueued(current.subagent_id, yield* now)
        // A subagent that never ran a turn has no session: none is created to stop nothing.
        const session = yield* sessions.findSession(current.agent_id, SUBAGENT_CHANNEL, current.subagent_id)
        if (session !== undefined) yield* runtime.stopTurn(session.session_id)
        const closed = yield* repo.move(current.subagent_id, { from: ["closing"], to: "closed", at: yield* now, closed: true })
        if (closed === undefined) return { subagent: toSubagent((yield* repo.get(current.subagent_id)) ?? current) }
        const subagent = toSubagent(closed)
        yield* announce(SubagentClosed, { subagent }, closed)
        return { subagent }
      })

      return Subagents.of({ spawn, list, get, send, close })
    })
  )

  /** Wired: its repository, the sessions' and the event bus; needs `AgentRuntime`, `GatewayConfig` and a `SqlClient`. */
  static readonly layer = Subagents.layerNoDeps.pipe(
    Layer.provide(SubagentsRepo.layer),
    Layer.provide(AgentRepo.layer),
    Layer.provide(EventBus.layer),
    Layer.provide(Wakes.layer)
  )
}
