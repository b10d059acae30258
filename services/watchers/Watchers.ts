/**
 * Watchers (gateway-api.md "Watchers"; reference §6.7; docs/watchers.md):
 * a watcher fires its plan's automation on a trigger — `periodic` once per
 * time slot (ticker.ts), `plan_complete` when a run of its plan succeeds or
 * fails (a subscriber of the workflow's `RunEnded` domain event), `webhook` on a signed call
 * (webhook/WebhookTrigger.ts). Every firing is one row, unique per watcher
 * and slot, nonce or source run, so it happens once even with several
 * gateway processes on one database; with `SVC_AUTOMATION_ENABLED=1` it
 * starts a run (automation.ts), and it is announced as `watcher.fired`.
 *
 * @module
 */
import { Cause, Clock, Context, Effect, Layer, Result } from "effect"
import { randomUUID } from "node:crypto"
import { GatewayConfig } from "../../layers/config.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { BackgroundJobs } from "../backplane/BackgroundJobs.ts"
import { Playbooks } from "../playbooks/Playbooks.ts"
import { SecretStore } from "../secrets/SecretStore.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { isoTime } from "../shared/time.ts"
import { RunEnded } from "../workflow/domainEvents.ts"
import { type RunOptions, Workflow, WorkflowLive } from "../workflow/Workflow.ts"
import type { ExecutionRun } from "../workflow/runs/schema.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { dedupeKey, type FiringTrigger, planRun } from "./automation.ts"
import { decodeTriggerConfig } from "./config.ts"
import { WatcherFired } from "./events.ts"
import type { Watcher, WatcherCreated, WatcherCreateRequest, WatcherFiring, WatcherListState } from "./schema.ts"
import { PERIODIC_JOB, periodicTick, TICK } from "./ticker.ts"
import { type FiringResult, WatchersRepo } from "./WatchersRepo.ts"

export type { FiringTrigger } from "./automation.ts"

/** What {@link Watchers} `fire` did: fired (the firing in its final state), or nothing because that firing exists. */
export type FireOutcome =
  | { readonly fired: true; readonly firing: WatcherFiring }
  | { readonly fired: false; readonly reason: "duplicate" }

const now = Effect.map(Clock.currentTimeMillis, isoTime)

/** The watchers service. Storage failures are defects (500 `internal_error`). */
export class Watchers extends Context.Service<Watchers, {
  /**
   * Stores an active watcher. `InvalidRequest` naming the field when
   * `trigger_config` does not fit `trigger_type` (config.ts) or a webhook's
   * `secret_handle` is not an active secret handle.
   */
  readonly create: (input: WatcherCreateRequest) => Effect.Effect<WatcherCreated, InvalidRequest>
  /** The watchers (not deleted) of `state` (`active`, `inactive` or `all`; default `active`), by id. */
  readonly list: (state?: WatcherListState) => Effect.Effect<{ readonly watchers: ReadonlyArray<Watcher> }>
  /** Sets `active` (`undefined`: no change); unknown or deleted: `NotFound`. */
  readonly setActive: (id: number, active: boolean | undefined) => Effect.Effect<{ id: number; updated: true }, NotFound>
  /** Soft delete: deactivated and marked deleted, unknown from then on; unknown or deleted: `NotFound`. */
  readonly remove: (id: number) => Effect.Effect<{ id: number; deleted: true }, NotFound>
  /** Any watcher not deleted (active or not); unknown or deleted: NotFound. */
  readonly get: (id: number) => Effect.Effect<Watcher, NotFound>
  /** The watcher's newest `limit` firings, newest first (an added route: docs/watchers.md "Firings"); unknown or deleted: NotFound. */
  readonly firings: (id: number, limit: number) => Effect.Effect<{ readonly firings: ReadonlyArray<WatcherFiring> }, NotFound>
  /**
   * Records one firing (unique per watcher and dedupe key: `duplicate` when
   * it exists) and, with automation on, starts its run; then publishes
   * `watcher.fired`. A run that cannot start leaves the firing `failed` with
   * the reason; it is never the caller's failure. It fires `watcher` as
   * given: callers pass an active watcher of the trigger's type (the ticker,
   * the RunEnded subscriber and the webhook trigger each check that).
   */
  readonly fire: (watcher: Watcher, trigger: FiringTrigger) => Effect.Effect<FireOutcome>
}>()("svc-gateway/watchers/Watchers") {
  /**
   * The service, its periodic ticker and its `plan_complete` subscription to
   * `RunEnded` (both stopped with the layer). Needs {@link WatchersRepo},
   * `GatewayConfig` (`automationEnabled`), `Workflow`, `Playbooks`,
   * `SecretStore`, `EventBus` and `DomainEvents`.
   */
  static readonly layerNoDeps: Layer.Layer<
    Watchers,
    never,
    WatchersRepo | GatewayConfig | Workflow | Playbooks | SecretStore | EventBus | DomainEvents
  > = Layer.effect(
    Watchers,
    Effect.gen(function*() {
      const repo = yield* WatchersRepo
      const settings = yield* GatewayConfig
      const workflow = yield* Workflow
      const playbooks = yield* Playbooks
      const secrets = yield* SecretStore
      const bus = yield* EventBus
      const domainEvents = yield* DomainEvents

      const invalid = (message: string) => Effect.fail(new InvalidRequest({ message }))
      const notFound = (id: number) => new NotFound({ message: `watcher ${id} not found` })

      const create = Effect.fn("Watchers.create")(function*(input: WatcherCreateRequest) {
        const config = decodeTriggerConfig(input.trigger_type, input.trigger_config)
        if (Result.isFailure(config)) return yield* invalid(config.failure)
        const handle = config.success.secret_handle
        if (handle !== undefined) {
          yield* secrets.get(handle).pipe(
            Effect.catchTag("NotFound", () => invalid(`trigger_config.secret_handle: no secret handle ${handle}`))
          )
        }
        const watcher = yield* repo.insert({
          plan_id: input.plan_id,
          trigger_type: input.trigger_type,
          trigger_config: input.trigger_config === undefined ? undefined : config.success,
          created_at: yield* now
        })
        yield* Effect.logInfo("watcher created").pipe(
          Effect.annotateLogs({ watcher_id: watcher.id, plan_id: watcher.plan_id, trigger_type: watcher.trigger_type })
        )
        return { id: watcher.id, plan_id: watcher.plan_id, trigger_type: watcher.trigger_type }
      })

      const get = Effect.fn("Watchers.get")(function*(id: number) {
        const watcher = yield* repo.get(id)
        if (watcher === undefined) return yield* notFound(id)
        return watcher
      })

      const setActive = Effect.fn("Watchers.setActive")(function*(id: number, active: boolean | undefined) {
        if (active === undefined) yield* get(id)
        else if (!(yield* repo.setActive(id, active, yield* now))) return yield* notFound(id)
        return { id, updated: true as const }
      })

      const remove = Effect.fn("Watchers.remove")(function*(id: number) {
        if (!(yield* repo.softDelete(id, yield* now))) return yield* notFound(id)
        yield* Effect.logInfo("watcher deleted").pipe(Effect.annotateLogs({ watcher_id: id }))
        return { id, deleted: true as const }
      })

      /** Starts the firing's run if there is one to start; how the firing ended. */
      const startRun = (watcher: Watcher, firingId: string, trigger: FiringTrigger): Effect.Effect<FiringResult> => {
        const recorded: FiringResult = { status: "recorded", run_id: null, error: null }
        if (!settings.automationEnabled) return Effect.succeed(recorded)
        const config = decodeTriggerConfig(watcher.trigger_type, watcher.trigger_config)
        if (Result.isFailure(config)) {
          return Effect.succeed({ status: "failed", run_id: null, error: `invalid stored ${config.failure}` })
        }
        const run = planRun(watcher, config.success, firingId, trigger)
        if (run === undefined) return Effect.succeed(recorded)
        const options: RunOptions = { trigger_kind: run.trigger_kind, trigger: run.trigger }
        const started: Effect.Effect<{ readonly run_id: string }, NotFound> = "steps" in run.what
          ? workflow.run({ key: run.key, lane: run.lane, plan_id: run.plan_id, steps: run.what.steps }, undefined, options)
          : playbooks.execute(run.what.playbook_id, { key: run.key, lane: run.lane, plan_id: run.plan_id }, options)
        return started.pipe(
          Effect.map((response): FiringResult => ({ status: "enqueued", run_id: response.run_id, error: null })),
          Effect.catchCause((cause) =>
            Effect.succeed<FiringResult>({ status: "failed", run_id: null, error: causeMessage(cause) })
          )
        )
      }

      const fire = Effect.fn("Watchers.fire")(function*(watcher: Watcher, trigger: FiringTrigger) {
        const firing_id = `firing-${randomUUID()}`
        const created_at = yield* now
        const columns = {
          slot: trigger.kind === "slot" ? trigger.slot : null,
          nonce_digest: trigger.kind === "nonce" ? trigger.nonce_digest : null,
          source_run_id: trigger.kind === "run" ? trigger.run_id : null
        }
        // The unique (watcher_id, dedupe_key) row decides, across processes, who fires.
        const inserted = yield* repo.insertFiring({
          firing_id,
          watcher_id: watcher.id,
          trigger_type: watcher.trigger_type,
          dedupe_key: dedupeKey(trigger),
          nonce_key: trigger.kind === "nonce" ? trigger.nonce_key : null,
          ...columns,
          created_at
        })
        if (!inserted) return { fired: false, reason: "duplicate" } as const
        const result = yield* startRun(watcher, firing_id, trigger)
        yield* repo.finishFiring(firing_id, result, yield* now)
        const firing: WatcherFiring = {
          firing_id,
          watcher_id: watcher.id,
          plan_id: watcher.plan_id,
          trigger_type: watcher.trigger_type,
          ...columns,
          ...result,
          created_at
        }
        yield* bus.publish(WatcherFired, firing, { kind: "watcher", watcher_id: watcher.id })
        yield* Effect.logInfo("watcher fired").pipe(Effect.annotateLogs({
          watcher_id: watcher.id,
          firing_id,
          trigger_type: watcher.trigger_type,
          status: result.status,
          ...(firing.slot !== null ? { slot: firing.slot } : {}),
          ...(result.run_id !== null ? { run_id: result.run_id } : {}),
          ...(result.error !== null ? { error: result.error } : {})
        }))
        return { fired: true, firing } as const
      })

      const onRunEnded = (run: ExecutionRun) =>
        run.status !== "succeeded" && run.status !== "failed" ? Effect.void : Effect.gen(function*() {
          const watchers = yield* repo.listPlanComplete(run.plan_id)
          yield* Effect.forEach(watchers, (watcher) =>
            fire(watcher, { kind: "run", run_id: run.run_id, status: run.status }).pipe(
              Effect.catchCause((cause) =>
                Effect.logWarning("plan_complete watcher firing failed").pipe(
                  Effect.annotateLogs({ watcher_id: watcher.id, run_id: run.run_id, cause: Cause.pretty(cause) })
                )
              )
            ), { discard: true })
        })

      yield* domainEvents.subscribe(RunEnded, onRunEnded)
      const jobs = yield* BackgroundJobs
      yield* jobs.schedule({
        name: PERIODIC_JOB,
        every: TICK,
        run: periodicTick({
          periodic: repo.listActive("periodic"),
          fire: (watcher, slot) => fire(watcher, { kind: "slot", slot })
        })
      })

      return Watchers.of({
        create,
        list: Effect.fn("Watchers.list")((state = "active") =>
          Effect.map(state === "active" ? repo.listActive() : repo.listLive, (all) => ({
            watchers: state === "inactive" ? all.filter((watcher) => !watcher.active) : all
          }))),
        setActive,
        remove,
        get,
        firings: Effect.fn("Watchers.firings")((id, limit) =>
          Effect.flatMap(get(id), () =>
            Effect.map(repo.recentFirings(id, limit), (firings) => ({ firings })))),
        fire
      })
    })
  )

  /**
   * Wired for the gateway: {@link Watchers.layerNoDeps} over its migrated
   * repository, the gateway's workflow and playbooks subsystems and the
   * event bus (layer values shared with the rest of the graph). Needs
   * `GatewayConfig`, a `SqlClient`, `SecretStore` and `DomainEvents` (the
   * composition root provides the secrets subsystem and the domain events).
   */
  static readonly layer = Watchers.layerNoDeps.pipe(
    Layer.provide(WatchersRepo.layer),
    Layer.provide(WorkflowLive),
    Layer.provide(Playbooks.layer),
    Layer.provide(EventBus.layer)
  )
}

/** A short reason from a failed start (the error's message; a defect's too). */
const causeMessage = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const message = typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error)
  return message.length > 500 ? `${message.slice(0, 499)}…` : message
}
