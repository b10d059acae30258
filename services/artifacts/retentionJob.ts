/**
 * The artifact retention sweep as a recurring background job
 * (retention.ts; docs/artifacts.md "Retention").
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { BackgroundJobs } from "../backplane/BackgroundJobs.ts"
import { Artifacts } from "./Artifacts.ts"
import { RETENTION_JOB, SWEEP_INTERVAL } from "./retention.ts"

/** The sweep every {@link SWEEP_INTERVAL} as a recurring background job; needs {@link Artifacts} and `BackgroundJobs`. */
export const ArtifactRetention = {
  layer: Layer.effectDiscard(Effect.gen(function*() {
    const artifacts = yield* Artifacts
    const jobs = yield* BackgroundJobs
    yield* jobs.schedule({
      name: RETENTION_JOB,
      every: SWEEP_INTERVAL,
      run: artifacts.sweep.pipe(
        Effect.asVoid,
        Effect.catchDefect((defect) => Effect.logWarning("artifact retention sweep failed").pipe(Effect.annotateLogs({ cause: String(defect) })))
      )
    })
  }))
}
