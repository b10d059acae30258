/**
 * The expiry fiber: moves each pending approval to `expired` at the moment its
 * `expires_at` passes (not lazily on read), through the one conditional write,
 * and announces it. It sleeps until the earliest pending `expires_at` (at most
 * {@link MAX_IDLE}, so approvals created by another instance sharing the
 * database are never missed), and is woken early when an approval due sooner
 * is created here. Storage failures are logged and retried. It runs as the
 * background job {@link EXPIRY_JOB} (`BackgroundJobs.singleton`: one
 * instance where a cluster runs; a wake-up from another instance is seen at
 * its next look, within {@link MAX_IDLE}).
 */
import { Clock, Duration, Effect, Latch } from "effect"
import { catchStorageDefect } from "../../layers/storage/repositoryEdge.ts"

/** The loop's name as a background job. */
export const EXPIRY_JOB = "approvals.expiry"

/** Longest sleep between two looks at the database. */
export const MAX_IDLE = Duration.minutes(1)

/** Pause after a failed round (e.g. the database is unreachable). */
const RETRY_AFTER = Duration.seconds(5)

/** The loop and its wake-up call. */
export interface Expiry {
  /** Runs forever (fork it into the service's scope). */
  readonly run: Effect.Effect<never>
  /** Tells the loop an approval now expires at `expiresAtMs`; wakes it if that is earlier than its current target. */
  readonly notify: (expiresAtMs: number) => void
}

/**
 * `expireDue` expires and announces every due approval; `nextExpiry` is the
 * earliest pending `expires_at` (ISO), if any.
 */
export const makeExpiry = (options: {
  readonly expireDue: Effect.Effect<unknown>
  readonly nextExpiry: Effect.Effect<string | undefined>
}): Expiry => {
  const wake = Latch.makeUnsafe(false)
  let target = Number.POSITIVE_INFINITY
  const maxIdleMs = Duration.toMillis(MAX_IDLE)

  const round = Effect.gen(function*() {
    yield* wake.close
    target = Number.POSITIVE_INFINITY // a create during this round always wakes the next sleep
    yield* options.expireDue
    const next = yield* options.nextExpiry
    const now = yield* Clock.currentTimeMillis
    const due = next === undefined ? Number.POSITIVE_INFINITY : Date.parse(next)
    const delay = Math.min(Math.max(due - now, 0), maxIdleMs)
    target = now + delay
    if (wake.isOpen()) return
    yield* Effect.raceFirst(Effect.sleep(delay), wake.await)
  }).pipe(
    // The database failing (a defect at the repository edge) is retried; any other defect ends the loop.
    catchStorageDefect((error) =>
      Effect.logWarning("approval expiry round failed; retrying").pipe(
        Effect.annotateLogs({ cause: String(error) }),
        Effect.andThen(Effect.sleep(RETRY_AFTER))
      )
    )
  )

  return {
    run: Effect.forever(round),
    notify: (expiresAtMs) => {
      if (expiresAtMs < target) wake.openUnsafe()
    }
  }
}
