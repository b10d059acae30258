/**
 * What every executor is: one attempt of one action, and the definition the
 * executor registry (registry.ts) builds it from.
 *
 * @module
 */
import type { Effect } from "effect"
import type { ActionPrimitive, ActionPrimitiveKind } from "../../planner/schema.ts"
import type { AttemptContext, AttemptFailed, AttemptOutcome } from "../StepExecutor.ts"

/** Runs one attempt of an action of the kinds it handles (postconditions are checked by the registry). */
export type ActionExecutor = (action: ActionPrimitive, context: AttemptContext) => Effect.Effect<AttemptOutcome, AttemptFailed>

/**
 * One executor as the registry takes it: the action kinds it runs, optionally
 * steps of any kind it claims, and the effect that builds it from its
 * services (run once, when the `StepExecutor` layer is built, so its
 * requirements `R` and errors `E` become that layer's).
 */
export interface ExecutorDefinition<E = never, R = never> {
  /** The kinds it runs; two executors of one registry may not share a kind. */
  readonly kinds: ReadonlyArray<ActionPrimitiveKind>
  /**
   * Steps it runs whatever their kind, checked before the kinds (`Confirm`
   * excepted, which no executor runs): the node executor's `args.capability`.
   */
  readonly claims?: (action: ActionPrimitive) => boolean
  /** Builds the executor. */
  readonly make: Effect.Effect<ActionExecutor, E, R>
}
