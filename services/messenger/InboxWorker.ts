/**
 * The messenger inbox worker (issue 26 §3; docs/messenger.md "The inbox" and
 * "Queue modes"): runs queued updates as agent turns in their session's
 * lane and hands the replies to the messenger.
 *
 * - **Lanes**: an item's lane is its session key `agent:<agent>:messenger:<chat>`
 *   (the session of the routed agent, channel `messenger`, thread the chat
 *   id). One fiber per lane with pending items runs them in `inbox_id` order,
 *   one turn at a time; lanes run in parallel.
 * - **Queue modes** (the session's `/queue`, `agent_session_settings`; default
 *   `followup`): `followup` one turn per item in order; `collect` every item
 *   waiting in the lane merged (blank-line separated) into one turn; `steer`
 *   as `collect` (the runtime cannot feed a running turn, so what arrives
 *   while it runs steers the next one); `steer_backlog` as `followup` (each
 *   item kept for its own turn); `interrupt` an item arriving while a turn of
 *   the lane runs stops that turn (`AgentRuntime.stopTurn`; the stopped item
 *   ends `interrupted`, its partial reply stored in the session but not
 *   delivered), then the waiting items run as `followup`.
 * - **Send policy** (the session's `/send`): `off` records the reply as a
 *   `suppressed` receipt without sending it; `on` and `inherit` (the default)
 *   deliver it with `sendMessage`.
 * - **Restarts**: at start every item left `queued` or `running` is picked
 *   up (a turn stopped by the shutdown runs again: at least once); an item
 *   started {@link MAX_TURN_ATTEMPTS} times fails. Items accepted by another
 *   instance are found at the next look, every {@link RESCAN_INTERVAL}.
 *
 * The worker runs only with the agent runtime on and `MESSENGER_BOT_TOKEN` set.
 *
 * @module
 */
import { Cause, Clock, Context, Duration, Effect, Exit, Layer } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { AgentRuntime } from "../agent/AgentRuntime.ts"
import type { AgentSessionRow } from "../agent/AgentRepo.ts"
import { SessionSettingsRepo } from "../agent/SessionSettingsRepo.ts"
import type { QueueMode } from "../agent/schema.ts"
import { BackgroundJobs } from "../backplane/BackgroundJobs.ts"
import { Wakes } from "../backplane/wakes.ts"
import { makeKeyedWorker } from "../shared/keyedWorker.ts"
import { isoTime } from "../shared/time.ts"
import { Deliveries } from "./Deliveries.ts"
import { type Enqueued, InboxRepo, type InboxRow, type NewInboxItem } from "./InboxRepo.ts"
import { MessengerClient } from "./MessengerClient.ts"
import { MESSENGER_CHANNEL } from "./normalize.ts"

/** The name of the worker job (services/backplane/BackgroundJobs.ts). */
export const INBOX_JOB = "messenger.inbox"

/** Starts of one item (the first and the runs after restarts) before it fails. */
export const MAX_TURN_ATTEMPTS = 3

/** How often the worker looks for items it was not told of (accepted by another instance). */
export const RESCAN_INTERVAL = Duration.seconds(30)

/** The lane (and session key) of a chat's session with an agent: `agent:<agent>:messenger:<chat>`. */
export const laneOf = (agentId: string, chatId: string): string => `agent:${agentId}:${MESSENGER_CHANNEL}:${chatId}`

/** The message of a failed turn's cause: the error's own message, never a stack. */
const causeMessage = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message
  }
  return "the turn failed"
}

/** Which waiting items one turn takes under `mode`. */
export const batchOf = (mode: QueueMode, pending: ReadonlyArray<InboxRow>): ReadonlyArray<InboxRow> =>
  mode === "collect" || mode === "steer" ? pending : pending.slice(0, 1)

/** The inbox: queuing an item and the worker that runs them. */
export class InboxWorker extends Context.Service<InboxWorker, {
  /** Queues an update (deduplicated) and, when new, tells the worker; the item either way. */
  readonly enqueue: (item: NewInboxItem) => Effect.Effect<Enqueued>
}>()("svc-gateway/messenger/InboxWorker") {
  /**
   * Needs {@link InboxRepo}, `AgentRuntime`, `SessionSettingsRepo`, {@link Deliveries}, {@link MessengerClient} and
   * `GatewayConfig`; starts the worker in the layer's scope with `agentEnabled` and a bot token.
   */
  static readonly layerNoDeps = Layer.effect(
    InboxWorker,
    Effect.gen(function*() {
      const repo = yield* InboxRepo
      const runtime = yield* AgentRuntime
      const sessionSettings = yield* SessionSettingsRepo
      const deliveries = yield* Deliveries
      const client = yield* MessengerClient
      const settings = yield* GatewayConfig
      const jobs = yield* BackgroundJobs
      const now = Effect.map(Clock.currentTimeMillis, isoTime)

      /** The turn each lane runs (its session; one object per turn), and the lanes whose turn `interrupt` stopped. */
      const running = new Map<string, { readonly sessionId: string }>()
      const interrupted = new Set<string>()

      const modeOf = (sessionId: string) =>
        Effect.map(sessionSettings.get(sessionId), (row) => ({
          queue: row?.queue_mode ?? "followup",
          send: row?.send_policy ?? "inherit"
        }))

      /** Delivers (or, with send policy `off`, suppresses) a turn's reply. */
      const deliver = Effect.fnUntraced(function*(session: AgentSessionRow, item: InboxRow, reply: string) {
        if (reply.trim() === "") return
        const target = { account: item.account, chatId: item.chat_id, kind: "reply" as const, inboxId: item.inbox_id }
        const policy = (yield* modeOf(session.session_id)).send
        if (policy === "off") return yield* deliveries.suppress(target)
        return yield* deliveries.deliver(target, client.sendMessage(item.chat_id, reply))
      })

      /** One turn of the lane's oldest items (one, or all of them under `collect`). */
      const runNext = Effect.fnUntraced(function*(lane: string, pending: ReadonlyArray<InboxRow>) {
        const first = pending[0]
        if (first.attempts >= MAX_TURN_ATTEMPTS) {
          return yield* repo.finish([first.inbox_id], {
            status: "failed",
            error: `the turn was started ${first.attempts} times without finishing (the gateway stopped during each)`
          }, yield* now)
        }
        const session = yield* runtime.sessionFor({ agentId: first.agent_id, channel: MESSENGER_CHANNEL, threadId: first.chat_id })
        const batch = batchOf((yield* modeOf(session.session_id)).queue, pending).filter((row) => row.attempts < MAX_TURN_ATTEMPTS)
        const claimed = yield* repo.claim(batch.map((row) => row.inbox_id), yield* now)
        if (claimed.length === 0) return
        const taken = batch.filter((row) => claimed.includes(row.inbox_id))
        running.set(lane, { sessionId: session.session_id })
        const exit = yield* Effect.exit(runtime.turnIn(session, taken.map((row) => row.text).join("\n\n"))).pipe(
          Effect.ensuring(Effect.sync(() => running.delete(lane)))
        )
        const stopped = interrupted.delete(lane)
        const at = yield* now
        if (Exit.isFailure(exit)) {
          // Interrupted (the gateway is stopping): the items stay `running` for the next start.
          if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
          return yield* repo.finish(claimed, { status: "failed", error: causeMessage(exit.cause) }, at)
        }
        if (stopped) {
          return yield* repo.finish(claimed, { status: "interrupted", reply: exit.value.reply, error: "stopped by a newer message (queue mode interrupt)" }, at)
        }
        yield* repo.finish(claimed, { status: "processed", reply: exit.value.reply }, at)
        yield* deliver(session, taken[taken.length - 1], exit.value.reply)
      })

      /** A new item in a lane whose turn runs: under `interrupt`, that turn is stopped. */
      const interruptIfAsked = Effect.fnUntraced(function*(lane: string) {
        const turn = running.get(lane)
        if (turn === undefined || interrupted.has(lane)) return
        if ((yield* modeOf(turn.sessionId)).queue !== "interrupt") return
        // The turn may have ended while the mode was read, and the lane started the next one (this update's own):
        // only the turn that ran when the update was accepted is stopped.
        if (running.get(lane) !== turn) return
        interrupted.add(lane)
        if (!(yield* runtime.stopTurn(turn.sessionId))) interrupted.delete(lane)
      })

      const lanes = yield* makeKeyedWorker({
        name: "messenger inbox worker",
        keyLabel: "lane",
        next: (lane) => Effect.map(repo.pendingIn(lane), (pending) => (pending.length === 0 ? undefined : pending)),
        run: runNext,
        pendingKeys: repo.pendingLanes,
        rescanInterval: RESCAN_INTERVAL,
        wakes: yield* Wakes
      })

      if (settings.agentEnabled && settings.messengerBotToken !== undefined) yield* jobs.singleton({ name: INBOX_JOB, run: lanes.worker })

      const enqueue = Effect.fn("InboxWorker.enqueue")(function*(item: NewInboxItem) {
        const result = yield* repo.enqueue(item)
        if (!result.deduped) {
          // Under `interrupt`, the lane's running turn is stopped before the ingress answers.
          yield* interruptIfAsked(item.session_key).pipe(Effect.catchCause(() => Effect.void))
          yield* lanes.wake(item.session_key)
        }
        return result
      })

      return InboxWorker.of({ enqueue })
    })
  )
}
