/**
 * The expiry fiber: moves each pending approval to `expired` at the moment its
 * `expires_at` passes (not lazily on read), through the one conditional write,
 * and announces it; a due-time loop (services/shared/dueTimer.ts) woken early
 * when an approval due sooner is created here. It runs as the background job
 * {@link EXPIRY_JOB} (`BackgroundJobs.singleton`: one instance where a cluster
 * runs; a wake-up from another instance is seen at its next look, within
 * `MAX_IDLE`).
 */
import type { Effect } from "effect"
import { type DueTimer, makeDueTimer } from "../shared/dueTimer.ts"

/** The loop's name as a background job. */
export const EXPIRY_JOB = "approvals.expiry"

/**
 * `expireDue` expires and announces every due approval; `nextExpiry` is the
 * earliest pending `expires_at` (ISO), if any. `notify(expiresAtMs)` wakes the loop.
 */
export const makeExpiry = (options: {
  readonly expireDue: Effect.Effect<unknown>
  readonly nextExpiry: Effect.Effect<string | undefined>
}): DueTimer => makeDueTimer({ what: "approval expiry", fireDue: options.expireDue, nextDue: options.nextExpiry })
