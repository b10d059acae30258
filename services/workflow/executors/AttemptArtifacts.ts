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
import type { ArtifactKind, ArtifactLink, ArtifactRef } from "../../artifacts/schema.ts"
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

/**
 * Stores an attempt's artifact and answers its ref (`undefined`: not
 * stored, e.g. over the bundle's artifact quotas: a warning is logged and
 * the step carries on without it). Other failures are defects.
 */
export type StoreAttemptArtifact = (attempt: AttemptContext, artifact: AttemptArtifact) => Effect.Effect<ArtifactRef | undefined>

/** The {@link StoreAttemptArtifact} executors use; by default nothing is stored. */
export const AttemptArtifacts = Context.Reference<StoreAttemptArtifact>(
  "svc-gateway/workflow/AttemptArtifacts",
  { defaultValue: () => () => Effect.succeed(undefined) }
)

/** The durable link of an attempt's artifacts: its ids, its run's policy snapshot and agent. */
export type AttemptArtifactLinkOf = (attempt: AttemptContext) => Effect.Effect<ArtifactLink>

/**
 * The {@link AttemptArtifactLinkOf} executors hand to producers outside the
 * workflow (a node's `attempt.evidence` attachments, through
 * `NodeDispatch`); by default the attempt's ids only.
 */
export const AttemptArtifactLink = Context.Reference<AttemptArtifactLinkOf>(
  "svc-gateway/workflow/AttemptArtifactLink",
  { defaultValue: () => (attempt) => Effect.succeed({ run_id: attempt.run_id, step_id: attempt.step_id, attempt_id: attempt.attempt_id }) }
)

/** The link of `attempt` from its run record. */
const linkFrom = (runs: RunsRepo["Service"]): AttemptArtifactLinkOf => (attempt) =>
  Effect.map(runs.getRunRecord(attempt.run_id), (run) => ({
    run_id: attempt.run_id,
    step_id: attempt.step_id,
    attempt_id: attempt.attempt_id,
    policy_snapshot_id: run?.policy_snapshot_id,
    agent_id: keyAgentId(run?.key ?? "")
  }))

/** {@link AttemptArtifactLink} from the run records. */
const AttemptArtifactLinkStored = Layer.effect(AttemptArtifactLink, Effect.map(RunsRepo, linkFrom))

/**
 * {@link AttemptArtifacts} over the artifacts subsystem, linked to the
 * attempt and its run's policy snapshot and agent, and
 * {@link AttemptArtifactLink} from the run records.
 */
export const AttemptArtifactsStored: Layer.Layer<never, never, Artifacts | RunsRepo> = Layer.merge(Layer.effect(
  AttemptArtifacts,
  Effect.gen(function*() {
    const artifacts = yield* Artifacts
    const linkOf = linkFrom(yield* RunsRepo)
    return (attempt: AttemptContext, artifact: AttemptArtifact) =>
      Effect.gen(function*() {
        const link = yield* linkOf(attempt)
        return yield* artifacts.put({ ...artifact, link }).pipe(
          // Over quota: the step's own outcome stands; only its artifact is missing (docs/artifacts.md "Quotas").
          Effect.catchTag("ArtifactQuotaExceeded", (error) =>
            Effect.as(
              Effect.logWarning("artifact not stored: over quota").pipe(Effect.annotateLogs({
                run_id: attempt.run_id,
                attempt_id: attempt.attempt_id,
                kind: artifact.kind,
                rule: error.details.rule,
                reason: error.message
              })),
              undefined
            ))
        )
      })
  })
), AttemptArtifactLinkStored)
