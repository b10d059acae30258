/** The reconnect backoff of the client core as an Effect `Schedule`, stepped synchronously by the client. */
import { Duration, Effect, Exit, Random, Schedule } from "effect"
import type { ReconnectOptions } from "./types.ts"

/**
 * The reconnect backoff as an Effect `Schedule`: exponential from
 * `initialDelayMs`, capped at `maxDelayMs`, with full jitter (a uniformly
 * random delay below the cap), for at most `maxAttempts` attempts.
 */
export const reconnectSchedule = (policy: Required<ReconnectOptions>): Schedule.Schedule<unknown> =>
  Schedule.max([Schedule.exponential(Duration.millis(policy.initialDelayMs)), Schedule.recurs(policy.maxAttempts)]).pipe(
    Schedule.modifyDelay(({ duration }) =>
      Effect.map(Random.next, (r) => Duration.millis(Math.floor(r * Math.min(policy.maxDelayMs, Duration.toMillis(duration)))))
    )
  )

/** Steps a schedule synchronously: the next delay in milliseconds, or `undefined` once it is done. */
export type ScheduleStepper = () => number | undefined

/** A stepper of `schedule` (its state kept between calls). */
export const stepper = (schedule: Schedule.Schedule<unknown>): ScheduleStepper => {
  const step = Effect.runSync(Schedule.toStep(schedule))
  return () => {
    const exit = Effect.runSyncExit(step(Date.now(), undefined))
    return Exit.isSuccess(exit) ? Duration.toMillis(exit.value[1]) : undefined
  }
}
