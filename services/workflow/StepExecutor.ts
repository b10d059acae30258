/**
 * What runs one step's action (issue 12 "Executors"): the one service the
 * engine calls, so it does not know the kinds. The gateway's is the executor
 * registry (executors/registry.ts) over a list of executors, each declaring
 * the action kinds it runs (executors/StepExecutorLive.ts `EXECUTORS`).
 * Policy gating, budgets, retries and pauses are the engine's; an executor
 * only performs one attempt.
 *
 * @module
 */
import { Context, Data, type Effect } from "effect"
import type { ActionPrimitive } from "../planner/schema.ts"

/** Where an attempt runs. */
export interface AttemptContext {
  readonly run_id: string
  readonly step_index: number
  readonly step_id: string
  readonly attempt_id: string
  /** 1-based. */
  readonly attempt: number
  /** The attempt's time limit in milliseconds. */
  readonly timeout_ms: number
}

/** A finished attempt: the action's result (JSON), any evidence, and the refs of the artifacts it stored. */
export interface AttemptOutcome {
  readonly result: unknown
  readonly evidence?: unknown
  /** `ArtifactRef`s of what the attempt stored (an Http step's `http_trace`); listed in the attempt's record. */
  readonly artifacts?: ReadonlyArray<unknown>
  /** What the attempt used (`AttemptCost`: tokens, usd_micros, …), when the executor knows; budgets sum it. */
  readonly cost?: {
    readonly input_tokens?: number
    readonly output_tokens?: number
    readonly total_tokens?: number
    readonly usd_micros?: number
    readonly model?: string
    readonly provider?: string
  }
}

/**
 * A failed attempt. `code`: `unsupported_action` (no executor for the kind),
 * `timeout`, `postcondition_failed`, `http_status`, `network_error`,
 * `exit_code`, `node_*` (from NodeDispatch), `invalid_action`, … —
 * `message` is for operators and never holds a secret.
 */
export class AttemptFailed extends Data.TaggedError("AttemptFailed")<{
  readonly code: string
  readonly message: string
  readonly result?: unknown
  readonly evidence?: unknown
  /** `ArtifactRef`s of what the attempt stored before it failed (an `http_status` answer's `http_trace`). */
  readonly artifacts?: ReadonlyArray<unknown>
}> {}

/** Performs single attempts of actions. */
export class StepExecutor extends Context.Service<StepExecutor, {
  /** Runs one attempt of `action`. */
  readonly execute: (action: ActionPrimitive, context: AttemptContext) => Effect.Effect<AttemptOutcome, AttemptFailed>
}>()("svc-gateway/workflow/StepExecutor") {}
