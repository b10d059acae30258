/**
 * Optional callbacks of {@link RunWorkflow} (issue 12): the engine calls them
 * from inside activities, so each call is recorded by the engine and made
 * once per state change (again only when an activity is re-run after a crash
 * in the middle of it). `services/workflow/Workflow.ts` implements them to
 * keep the run records (services/workflow/runs/) in step with the engine and
 * to create the approval and resume token of a `Confirm` pause. Without the
 * service in the environment (the engine tests) nothing is called.
 *
 * @module
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** How a run ended, as the engine saw it. */
export type RunEnd =
  | { readonly status: "succeeded" }
  | { readonly status: "failed"; readonly step_index: number; readonly code: string; readonly message: string }
  /** A `Confirm` pause was denied: the run is cancelled. */
  | { readonly status: "denied"; readonly step_index: number }

/** Callbacks of the run workflow; each must not fail (a failure is a defect of the run). */
export class RunHooks extends Context.Service<RunHooks, {
  /** The run's first step is about to start (the run is running). */
  readonly started: (run_id: string) => Effect.Effect<void>
  /** An attempt of step `step_index` starts. */
  readonly stepStarted: (run_id: string, step_index: number, attempt: number) => Effect.Effect<void>
  /** The attempt of step `step_index` ended. */
  readonly stepEnded: (
    run_id: string,
    step_index: number,
    attempt: number,
    outcome:
      | { readonly ok: true; readonly result: unknown }
      | { readonly ok: false; readonly code: string; readonly message: string; readonly result?: unknown }
  ) => Effect.Effect<void>
  /** The run pauses at the `Confirm` step `step_index`. */
  readonly paused: (run_id: string, step_index: number) => Effect.Effect<void>
  /** The `Confirm` step `step_index` was approved: the run continues. */
  readonly confirmed: (run_id: string, step_index: number) => Effect.Effect<void>
  /** The run ended. */
  readonly finished: (run_id: string, end: RunEnd) => Effect.Effect<void>
}>()("svc-gateway/workflow/RunHooks") {}
