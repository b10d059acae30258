/**
 * The engine behind `services/workflow/`: start, resume, cancel and poll
 * runs of {@link RunWorkflow}. Callers only see run ids; the engine's
 * deferred tokens are derivable from the run id, so they are built here,
 * server side, and never leave this module (issue 12 "Resume tokens").
 *
 * @module
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as DurableDeferred from "effect/workflow/DurableDeferred"
import * as Workflow from "effect/workflow/Workflow"
import { WorkflowEngine } from "effect/workflow/WorkflowEngine"
import {
  executionIdFor,
  type PauseDecision,
  pauseDeferred,
  type RunPayload,
  type RunCancelled,
  type RunDenied,
  type RunResult,
  RunWorkflow,
  RunWorkflowLayer,
  type StepFailed
} from "./RunWorkflow.ts"
import type { StepExecutor } from "../StepExecutor.ts"

/**
 * What the engine knows about a run:
 * - `unknown`: no reply recorded — never started, or started and running
 *   (the engine does not tell them apart; the run records do);
 * - `suspended`: waiting on a deferred (a pause);
 * - `succeeded` / `failed` (a step failed, a pause was denied, or the run's
 *   records were cancelled before a step could run) /
 *   `interrupted` (cancelled) / `died` (a defect).
 */
export type RunEngineStatus =
  | { readonly status: "unknown" }
  | { readonly status: "suspended" }
  | { readonly status: "succeeded"; readonly result: RunResult }
  | { readonly status: "failed"; readonly error: StepFailed | RunDenied | RunCancelled }
  | { readonly status: "interrupted" }
  | { readonly status: "died"; readonly message: string }

/** Starts, resumes, cancels and polls durable runs. */
export class WorkflowRuns extends Context.Service<WorkflowRuns, {
  /** Starts `payload.run_id` without waiting for it; starting an existing run id joins it (no second run). */
  readonly start: (payload: RunPayload) => Effect.Effect<void>
  /** Completes the pause named `pause` (`pauseName`: `confirm/2`, `policy/0`, `retry/1/2`…) with `decision`, which resumes the run. */
  readonly resume: (run_id: string, pause: string, decision: PauseDecision) => Effect.Effect<void>
  /** Interrupts the run (no effect on a finished or unknown run). */
  readonly cancel: (run_id: string) => Effect.Effect<void>
  /** The engine's view of the run. */
  readonly status: (run_id: string) => Effect.Effect<RunEngineStatus>
  /** Waits until the run is no longer running: finished, or suspended. Polls every `interval` (default 50 ms). */
  readonly awaitSettled: (run_id: string, interval?: number) => Effect.Effect<RunEngineStatus>
}>()("svc-gateway/workflow/WorkflowRuns") {
  /** `WorkflowRuns` over the `WorkflowEngine` in the environment (registers {@link RunWorkflow}). */
  static readonly layer: Layer.Layer<WorkflowRuns, never, WorkflowEngine | StepExecutor> = Layer.effect(
    WorkflowRuns,
    Effect.gen(function*() {
      const engine = yield* WorkflowEngine
      const provide = Effect.provideService(WorkflowEngine, engine)

      const status = Effect.fn("WorkflowRuns.status")((run_id: string) =>
        executionIdFor(run_id).pipe(
          Effect.flatMap((executionId) => RunWorkflow.poll(executionId)),
          Effect.map(toStatus),
          provide
        ))

      return WorkflowRuns.of({
        start: Effect.fn("WorkflowRuns.start")((payload) => Effect.asVoid(provide(RunWorkflow.execute(payload, { discard: true })))),
        resume: Effect.fn("WorkflowRuns.resume")(function*(run_id, pause, decision) {
          const deferred = pauseDeferred(pause)
          const executionId = yield* executionIdFor(run_id)
          const token = DurableDeferred.tokenFromExecutionId(deferred, { workflow: RunWorkflow, executionId })
          yield* DurableDeferred.succeed(deferred, { token, value: decision })
        }, provide),
        cancel: Effect.fn("WorkflowRuns.cancel")((run_id) =>
          executionIdFor(run_id).pipe(Effect.flatMap((id) => RunWorkflow.interrupt(id)), provide)
        ),
        status,
        awaitSettled: Effect.fn("WorkflowRuns.awaitSettled")(function*(run_id, interval = 50) {
          while (true) {
            const current = yield* status(run_id)
            if (current.status !== "unknown") return current
            yield* Effect.sleep(interval)
          }
        })
      })
    })
  ).pipe(Layer.provideMerge(RunWorkflowLayer))
}

const toStatus = (result: Option.Option<Workflow.Result<RunResult, StepFailed | RunDenied | RunCancelled>>): RunEngineStatus => {
  if (Option.isNone(result)) return { status: "unknown" }
  const value = result.value
  if (value._tag === "Suspended") return { status: "suspended" }
  const exit = value.exit
  if (Exit.isSuccess(exit)) return { status: "succeeded", result: exit.value }
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) return { status: "failed", error: failure.value }
  if (Cause.hasInterruptsOnly(exit.cause)) return { status: "interrupted" }
  return { status: "died", message: Cause.pretty(exit.cause) }
}

/**
 * `WorkflowRuns` over the `WorkflowEngine` in the environment.
 * @deprecated use {@link WorkflowRuns.layer} (docs/architecture.md "Conventions").
 */
export const WorkflowRunsLive = WorkflowRuns.layer
