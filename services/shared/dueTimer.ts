/**
 * A loop that acts on records at the moment they fall due (not lazily on
 * read): it runs `fireDue`, then sleeps until the earliest next due time
 * `nextDue` answers (at most {@link MAX_IDLE}, so records written by another
 * instance sharing the database are never missed), and is woken early by
 * `notify` when a record due sooner is written here. Storage failures (defects
 * at the repository edge) are logged with `what` and retried after
 * {@link RETRY_AFTER}; any other defect ends the loop. Time is `Clock`'s
 * (TestClock in tests). Approval expiry and work time signals run on it.
 *
 * @module
 */
import { Clock, Duration, Effect, Latch } from "effect"
import { catchStorageDefect } from "../../layers/storage/repositoryEdge.ts"

/** Longest sleep between two looks at the database. */
export const MAX_IDLE = Duration.minutes(1)

/** Pause after a failed round (e.g. the database is unreachable). */
export const RETRY_AFTER = Duration.seconds(5)

/** The loop and its wake-up call. */
export interface DueTimer {
  /** Runs forever (fork it as a background job). */
  readonly run: Effect.Effect<never>
  /** A record is now due at `dueMs` (ms since the epoch); wakes the loop if that is earlier than its current target. */
  readonly notify: (dueMs: number) => void
}

/**
 * `fireDue` acts on every due record; `nextDue` is the earliest next due time
 * (ISO 8601), if any; `what` names the loop in its warning ("approval expiry").
 */
export const makeDueTimer = (options: {
  readonly what: string
  readonly fireDue: Effect.Effect<unknown>
  readonly nextDue: Effect.Effect<string | undefined>
}): DueTimer => {
  const wake = Latch.makeUnsafe(false)
  let target = Number.POSITIVE_INFINITY
  const maxIdleMs = Duration.toMillis(MAX_IDLE)

  const round = Effect.gen(function*() {
    yield* wake.close
    target = Number.POSITIVE_INFINITY // a write during this round always wakes the next sleep
    yield* options.fireDue
    const next = yield* options.nextDue
    const now = yield* Clock.currentTimeMillis
    const due = next === undefined ? Number.POSITIVE_INFINITY : Date.parse(next)
    const delay = Math.min(Math.max(due - now, 0), maxIdleMs)
    target = now + delay
    if (wake.isOpen()) return
    yield* Effect.raceFirst(Effect.sleep(delay), wake.await)
  }).pipe(
    catchStorageDefect((error) =>
      Effect.logWarning(`${options.what} round failed; retrying`).pipe(
        Effect.annotateLogs({ cause: String(error) }),
        Effect.andThen(Effect.sleep(RETRY_AFTER))
      )
    )
  )

  return {
    run: Effect.forever(round),
    notify: (dueMs) => {
      if (dueMs < target) wake.openUnsafe()
    }
  }
}
