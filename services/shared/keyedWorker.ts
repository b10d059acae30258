/**
 * A worker over durable per-key queues (the messenger inbox's lanes, each subagent's messages): the items of one key
 * run one at a time in order, different keys in parallel. The queue itself is the caller's table; this module only
 * decides who drains what:
 *
 * - `wake(key)` (after an item was stored) reaches the worker wherever it runs (services/backplane/wakes.ts: in
 *   process, or across instances with `SVC_CLUSTER=1`, where the worker is a cluster singleton on one instance); it
 *   starts a drainer for the key, or, when one runs, marks the key so the drainer looks once more before it stops
 *   (nothing stored meanwhile is left behind);
 * - a drainer takes `next(key)` and runs `run(key, item)` until `next` finds nothing;
 * - at start and every `rescanInterval` the worker asks `pendingKeys` (items left by a restart, or stored by another
 *   instance) and wakes each;
 * - a drainer's failure is logged (`<name> failed; …`, the key under `keyLabel`) and the key is retried at the next
 *   look; interruption (the gateway stopping) propagates.
 *
 * `worker` never ends: run it as a `BackgroundJobs` singleton.
 *
 * @module
 */
import { Cause, type Duration, Effect, FiberSet, Queue, type Scope } from "effect"

/**
 * Where wake-ups travel (structurally services/backplane/wakes.ts `Wakes`, which the callers pass: in process, or
 * across instances).
 */
export interface WakeChannel {
  readonly wake: (topic: string, key: string) => Effect.Effect<void>
  readonly subscribe: (topic: string) => Effect.Effect<Queue.Dequeue<string>, never, Scope.Scope>
}

/** What a keyed worker needs: the queue's reads and one item's run. */
export interface KeyedWorkerOptions<A> {
  /** Names the worker in its logs (`messenger inbox worker`) and its wake-ups' topic: unique per worker. */
  readonly name: string
  /** The log annotation of the key (`lane`, `subagent_id`). */
  readonly keyLabel: string
  /** The key's next item to run, `undefined` when none waits. */
  readonly next: (key: string) => Effect.Effect<A | undefined, unknown>
  /** Runs one item of the key. */
  readonly run: (key: string, item: A) => Effect.Effect<void, unknown>
  /** Every key with items waiting. */
  readonly pendingKeys: Effect.Effect<ReadonlyArray<string>, unknown>
  readonly rescanInterval: Duration.Input
  /** Where wake-ups travel. */
  readonly wakes: WakeChannel
}

/** A keyed worker: `worker` to run, `wake` to call after storing an item. */
export interface KeyedWorker {
  readonly worker: Effect.Effect<never>
  readonly wake: (key: string) => Effect.Effect<void>
}

/** Makes the worker of {@link KeyedWorkerOptions}; its wake-ups go through `options.wakes`. */
export const makeKeyedWorker = <A>(options: KeyedWorkerOptions<A>): Effect.Effect<KeyedWorker> =>
  Effect.gen(function*() {
    const wakes = options.wakes
    /** Keys with a drainer, and those woken while it looked. */
    const draining = new Set<string>()
    const dirty = new Set<string>()
    // Interruption (the gateway stopping) is passed on; any other failure is logged.
    const logged = (what: string, key?: string) => (cause: Cause.Cause<unknown>): Effect.Effect<void> =>
      Cause.hasInterruptsOnly(cause)
        ? Effect.interrupt
        : Effect.logWarning(`${options.name} ${what}`).pipe(
          Effect.annotateLogs({ ...(key !== undefined ? { [options.keyLabel]: key } : {}), cause: Cause.pretty(cause) })
        )

    const drain = (key: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        while (true) {
          dirty.delete(key)
          const item = yield* options.next(key)
          if (item === undefined) {
            if (dirty.has(key)) continue
            return
          }
          yield* options.run(key, item)
        }
      }).pipe(
        Effect.catchCause(logged("failed; the key is retried at the next look", key)),
        Effect.ensuring(Effect.sync(() => draining.delete(key)))
      )

    const worker = Effect.scoped(Effect.gen(function*() {
      // Subscribed before the first look, so nothing woken after it is missed.
      const wakeups = yield* wakes.subscribe(options.name)
      const fibers = yield* FiberSet.make<void>()
      const start = (key: string) =>
        Effect.suspend(() => {
          if (draining.has(key)) {
            dirty.add(key)
            return Effect.void
          }
          draining.add(key)
          return Effect.asVoid(FiberSet.run(fibers, drain(key)))
        })
      const rescan = Effect.flatMap(options.pendingKeys, (keys) => Effect.forEach(keys, start, { discard: true })).pipe(
        Effect.catchCause(logged("could not look for waiting items"))
      )
      yield* rescan
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(options.rescanInterval), rescan)))
      return yield* Effect.forever(Effect.flatMap(Queue.take(wakeups), start))
    }))

    return { worker, wake: (key: string) => wakes.wake(options.name, key) }
  })
