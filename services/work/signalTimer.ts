/**
 * The time-signal loop: fires each active `time` signal at its `at` (not
 * lazily on read), through one conditional write per round, and announces
 * them; a due-time loop (services/shared/dueTimer.ts) woken early when a
 * signal due sooner is created or rescheduled here. It runs as the background
 * job {@link SIGNAL_JOB} (`BackgroundJobs.singleton`), on `Clock` (TestClock in tests).
 *
 * @module
 */
import type { Effect } from "effect"
import { type DueTimer, makeDueTimer } from "../shared/dueTimer.ts"

/** The loop's name as a background job. */
export const SIGNAL_JOB = "work.signals"

/** `fireDue` fires and announces every due signal; `nextDue` is the earliest active `due_at` (ISO), if any. */
export const makeSignalTimer = (options: {
  readonly fireDue: Effect.Effect<unknown>
  readonly nextDue: Effect.Effect<string | undefined>
}): DueTimer => makeDueTimer({ what: "work signal", ...options })
