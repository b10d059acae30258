/**
 * Where executors store what an attempt produced (issue 24 §4;
 * docs/artifacts.md "Producers"): an Http step's exchange as an
 * `http_trace`. The gateway's is the artifacts subsystem
 * (`Workflow.ts` provides {@link AttemptArtifactsStored}), which links each
 * artifact to the attempt, its step, its run and the run's policy snapshot;
 * by default (tests that build executors alone) nothing is stored.
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import { Artifacts } from "../../artifacts/Artifacts.ts"
import type { ArtifactKind, ArtifactRef } from "../../artifacts/schema.ts"
import { keyAgentId } from "../runs/keys.ts"
import { RunsRepo } from "../runs/RunsRepo.ts"
import type { AttemptContext } from "../StepExecutor.ts"

/** What an executor stores: bytes of a kind, with their type, labels and metadata. */
export interface AttemptArtifact {
  readonly kind: ArtifactKind
  readonly bytes: Uint8Array
  readonly mime_type?: string | undefined
  readonly labels?: ReadonlyArray<string> | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
}

/** Stores an attempt's artifact and answers its ref (`undefined`: not stored). Failures are defects. */
export type StoreAttemptArtifact = (attempt: AttemptContext, artifact: AttemptArtifact) => Effect.Effect<ArtifactRef | undefined>

/** The {@link StoreAttemptArtifact} executors use; by default nothing is stored. */
export const AttemptArtifacts = Context.Reference<StoreAttemptArtifact>(
  "svc-gateway/workflow/AttemptArtifacts",
  { defaultValue: () => () => Effect.succeed(undefined) }
)

/** {@link AttemptArtifacts} over the artifacts subsystem, linked to the attempt and its run's policy snapshot and agent. */
export const AttemptArtifactsStored: Layer.Layer<never, never, Artifacts | RunsRepo> = Layer.effect(
  AttemptArtifacts,
  Effect.gen(function*() {
    const artifacts = yield* Artifacts
    const runs = yield* RunsRepo
    return (attempt: AttemptContext, artifact: AttemptArtifact) =>
      Effect.gen(function*() {
        const run = yield* runs.getRunRecord(attempt.run_id)
        return yield* artifacts.put({
          ...artifact,
          link: {
            run_id: attempt.run_id,
            step_id: attempt.step_id,
            attempt_id: attempt.attempt_id,
            policy_snapshot_id: run?.policy_snapshot_id,
            agent_id: keyAgentId(run?.key ?? "")
          }
        })
      })
  })
)
