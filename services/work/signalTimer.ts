/**
 * The time-signal loop: fires each active `time` signal at its `at` (not
 * lazily on read), through one conditional write per round, and announces
 * them. It sleeps until the earliest due signal (at most {@link MAX_IDLE}, so
 * signals created by another instance sharing the database are never missed)
 * and is woken early when a signal due sooner is created or rescheduled here.
 * Storage failures are logged and retried. It runs as the background job
 * {@link SIGNAL_JOB} (`BackgroundJobs.singleton`), on `Clock` (TestClock in tests).
 *
 * @module
 */
import { Clock, Duration, Effect, Latch } from "effect"
import { catchStorageDefect } from "../../layers/storage/repositoryEdge.ts"

/** The loop's name as a background job. */
export const SIGNAL_JOB = "work.signals"

/** Longest sleep between two looks at the database. */
export const MAX_IDLE = Duration.minutes(1)

const RETRY_AFTER = Duration.seconds(5)

/** The loop and its wake-up call. */
export interface SignalTimer {
  /** Runs forever (fork it as a background job). */
  readonly run: Effect.Effect<never>
  /** A signal is now due at `dueMs`; wakes the loop if that is earlier than its current target. */
  readonly notify: (dueMs: number) => void
}

/** `fireDue` fires and announces every due signal; `nextDue` is the earliest active `due_at` (ISO), if any. */
export const makeSignalTimer = (options: {
  readonly fireDue: Effect.Effect<unknown>
  readonly nextDue: Effect.Effect<string | undefined>
}): SignalTimer => {
  const wake = Latch.makeUnsafe(false)
  let target = Number.POSITIVE_INFINITY
  const maxIdleMs = Duration.toMillis(MAX_IDLE)

  const round = Effect.gen(function*() {
    yield* wake.close
    target = Number.POSITIVE_INFINITY
    yield* options.fireDue
    const next = yield* options.nextDue
    const now = yield* Clock.currentTimeMillis
    const delay = Math.min(Math.max((next === undefined ? Number.POSITIVE_INFINITY : Date.parse(next)) - now, 0), maxIdleMs)
    target = now + delay
    if (wake.isOpen()) return
    yield* Effect.raceFirst(Effect.sleep(delay), wake.await)
  }).pipe(
    catchStorageDefect((error) =>
      Effect.logWarning("work signal round failed; retrying").pipe(
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
