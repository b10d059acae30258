/**
 * What every executor is: one attempt of one action.
 *
 * @module
 */
import type { Effect } from "effect"
import type { ActionPrimitive } from "../../planner/schema.ts"
import type { AttemptContext, AttemptFailed, AttemptOutcome } from "../StepExecutor.ts"

/** Runs one attempt of an action of the kinds it handles (postconditions are checked by the router). */
export type ActionExecutor = (action: ActionPrimitive, context: AttemptContext) => Effect.Effect<AttemptOutcome, AttemptFailed>
