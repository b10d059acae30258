/**
 * The workflow side of `POST /plan {execute: true}` (docs/planner.md
 * "Execution"): {@link PlanExecution} over `Workflow.run`. The planner decides
 * when a plan runs and that it runs once; this starts the run, with the
 * plan's id and request_id, on lane `main` of the trigger's conversation key
 * ({@link planRunKey}).
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { PlanExecution } from "../planner/PlanExecution.ts"
import type { PlanTrigger } from "../planner/schema.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { DEFAULT_LANE, MAX_KEY_PART_LENGTH } from "./runs/keys.ts"
import { DEFAULT_MAX_ATTEMPTS, DEFAULT_TIMEOUT_MS } from "./runs/schema.ts"
import { Workflow, WorkflowLive } from "./Workflow.ts"

/**
 * One part of a key from any text: percent-encoded (so no `:`, whitespace or
 * control character, and distinct texts stay distinct); when that is longer
 * than a key part may be (or the text is not valid UTF-16), `%sha256-<hex>`
 * of the text, which percent-encoding never produces (`%s`).
 */
export const keyPart = (text: string): string => {
  let encoded: string | undefined
  try {
    encoded = encodeURIComponent(text)
  } catch {
    encoded = undefined // a lone surrogate
  }
  return encoded !== undefined && encoded.length <= MAX_KEY_PART_LENGTH
    ? encoded
    : `%sha256-${sha256Hex(text)}`
}

/**
 * The key of a plan's run: `agent:default:<channel>:channel:<thread_id>`, the
 * conversation the plan answers (its reply goes to that thread). A plan
 * request names no agent, so the default agent's policy bundle governs the
 * run; it does not say whether the thread is a DM or a group, so the neutral
 * `channel` form is used. One run at a time per key and lane: plans of one
 * thread run in order, other threads are not held up by them.
 */
export const planRunKey = (trigger: PlanTrigger): string =>
  `agent:${DEFAULT_AGENT_ID}:${keyPart(trigger.channel)}:channel:${keyPart(trigger.thread_id)}`

/** {@link PlanExecution} over {@link Workflow}: lane `main`, the engine's step defaults. */
export const PlanExecutionNoDeps = Layer.effect(
  PlanExecution,
  Effect.map(Workflow, (workflow) => ({
    start: (plan) =>
      Effect.map(
        workflow.run({
          key: planRunKey(plan.trigger),
          lane: DEFAULT_LANE,
          plan_id: plan.plan_id,
          request_id: plan.request_id,
          steps: plan.steps.map((step) => ({ ...step, max_attempts: DEFAULT_MAX_ATTEMPTS, timeout_ms: DEFAULT_TIMEOUT_MS }))
        }),
        (response) => ({ run_id: response.run_id })
      )
  }))
)

/** {@link PlanExecutionNoDeps} over the gateway's workflow subsystem (`WorkflowLive`, built once per graph). */
export const PlanExecutionLive = PlanExecutionNoDeps.pipe(Layer.provide(WorkflowLive))
