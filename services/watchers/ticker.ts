/**
 * The periodic ticker (docs/watchers.md "Periodic"): every {@link TICK}
 * (Effect `Schedule.spaced`, on `Clock`), it lists the active periodic
 * watchers and fires each one's CURRENT slot, floor(now / interval_ms) ×
 * interval_ms. Slots that passed while no gateway ran are never
 * back-filled: the first tick after a start fires the current slot, once.
 * Several processes may tick over one database: the firing's unique row
 * decides which one fires (the others see a duplicate). Each process
 * remembers the slot it last settled per watcher, so a slot costs one
 * insert attempt per process, not one per tick. A failing watcher or round
 * is logged and the ticker goes on. The owning layer declares it as the
 * background job {@link PERIODIC_JOB} (`BackgroundJobs.schedule`, every
 * {@link TICK}), so where a cluster runs one instance ticks.
 *
 * @module
 */
import { Cause, Clock, Duration, Effect } from "effect"
import { repeatEvery } from "../backplane/BackgroundJobs.ts"
import { MIN_INTERVAL_MS, type Watcher } from "./schema.ts"
import { slotOf } from "./config.ts"

/** Time between two looks at the periodic watchers. */
export const TICK = Duration.seconds(1)

/** The ticker's name as a background job. */
export const PERIODIC_JOB = "watchers.periodic-ticker"

/** A stored periodic watcher's `interval_ms`, or `undefined` when its config has none usable. */
export const intervalOf = (watcher: Watcher): number | undefined => {
  const interval = watcher.trigger_config?.interval_ms
  return typeof interval === "number" && Number.isSafeInteger(interval) && interval >= MIN_INTERVAL_MS ? interval : undefined
}

/**
 * One tick (repeat it every {@link TICK}; it remembers settled slots across
 * ticks). `periodic` lists the active periodic watchers; `fire` fires one
 * slot. Never fails.
 */
export const periodicTick = <E>(options: {
  readonly periodic: Effect.Effect<ReadonlyArray<Watcher>, E>
  readonly fire: (watcher: Watcher, slot: number) => Effect.Effect<unknown>
}): Effect.Effect<void> => {
  // Per watcher, the last slot this process fired or saw fired (another process, or before a restart).
  const settled = new Map<number, number>()
  const fireOne = (watcher: Watcher, now: number) => {
    const interval = intervalOf(watcher)
    if (interval === undefined) return Effect.void
    const slot = slotOf(now, interval)
    if (settled.get(watcher.id) === slot) return Effect.void
    return options.fire(watcher, slot).pipe(
      Effect.andThen(Effect.sync(() => void settled.set(watcher.id, slot))),
      Effect.catchCause((cause) =>
        Effect.logWarning("periodic watcher firing failed; retried at the next tick").pipe(
          Effect.annotateLogs({ watcher_id: watcher.id, slot, cause: Cause.pretty(cause) })
        )
      )
    )
  }
  const tick = Effect.gen(function*() {
    const now = yield* Clock.currentTimeMillis
    const watchers = yield* options.periodic
    yield* Effect.forEach(watchers, (watcher) => fireOne(watcher, now), { discard: true })
    const listed = new Set(watchers.map((w) => w.id))
    for (const id of settled.keys()) if (!listed.has(id)) settled.delete(id)
  }).pipe(
    Effect.catchCause((cause) =>
      Effect.logWarning("periodic watcher round failed").pipe(Effect.annotateLogs({ cause: Cause.pretty(cause) }))
    )
  )
  return tick
}

/** The ticker as one effect: a tick now, then every {@link TICK} (runs forever). */
export const periodicTicker = <E>(options: Parameters<typeof periodicTick<E>>[0]): Effect.Effect<void> =>
  repeatEvery(periodicTick(options), TICK)
