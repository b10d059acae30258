/**
 * The executor registry (issue 21 §5; docs/workflow-executors.md "Wiring"):
 * the `StepExecutor` built from a list of {@link ExecutorDefinition}s, each
 * naming the action kinds it runs. Adding an executor (an `Agent`, an `Llm`)
 * is one definition and one entry in the list (`EXECUTORS`,
 * StepExecutorLive.ts); the registry does not know the kinds.
 *
 * An attempt is routed, in this order:
 * 1. `Confirm` → `unsupported_action` ("Confirm steps are not executed: the
 *    engine pauses the run for an approval"): the engine's, never an executor's;
 * 2. the first executor whose `claims` accepts the step;
 * 3. the executor registered for the step's kind;
 * 4. none → `unsupported_action` "no executor for action kind `<kind>`".
 *
 * After the executor succeeds, the step's postcondition is checked on the
 * result (postconditions.ts).
 *
 * @module
 */
import { Effect, Layer } from "effect"
import type { ActionPrimitive, ActionPrimitiveKind } from "../../planner/schema.ts"
import { AttemptFailed, type AttemptContext, StepExecutor } from "../StepExecutor.ts"
import { checkPostcondition } from "./postconditions.ts"
import type { ActionExecutor, ExecutorDefinition } from "./types.ts"

/** An executor built from its definition. */
export type RegisteredExecutor = Omit<ExecutorDefinition, "make"> & { readonly execute: ActionExecutor }

/** `definition`, typed: the identity, so `E` and `R` are inferred from `make`. */
export const defineExecutor = <E, R>(definition: ExecutorDefinition<E, R>): ExecutorDefinition<E, R> => definition

/** The kinds `definitions` run, in list order. */
export const kindsOf = (definitions: ReadonlyArray<Pick<ExecutorDefinition<unknown, unknown>, "kinds">>): ReadonlyArray<ActionPrimitiveKind> =>
  definitions.flatMap((d) => d.kinds)

const confirmNotExecuted = () =>
  new AttemptFailed({
    code: "unsupported_action",
    message: "Confirm steps are not executed: the engine pauses the run for an approval"
  })

/**
 * The `StepExecutor` over `executors` (see the module documentation for the
 * routing). Throws when two executors register the same kind: a wiring
 * mistake, found when the layer is built.
 */
export const makeStepExecutor = (executors: ReadonlyArray<RegisteredExecutor>): StepExecutor["Service"] => {
  const byKind = new Map<ActionPrimitiveKind, ActionExecutor>()
  for (const executor of executors) {
    for (const kind of executor.kinds) {
      if (byKind.has(kind)) throw new Error(`two executors are registered for action kind ${kind}`)
      byKind.set(kind, executor.execute)
    }
  }
  const claimers = executors.filter((e) => e.claims !== undefined)
  const route = (action: ActionPrimitive): ActionExecutor | undefined =>
    claimers.find((e) => e.claims!(action))?.execute ?? byKind.get(action.type)

  return StepExecutor.of({
    execute: Effect.fn("StepExecutor.execute")((action: ActionPrimitive, context: AttemptContext) => {
      if (action.type === "Confirm") return Effect.fail(confirmNotExecuted())
      const executor = route(action)
      if (executor === undefined) {
        return Effect.fail(new AttemptFailed({ code: "unsupported_action", message: `no executor for action kind ${action.type}` }))
      }
      return Effect.tap(executor(action, context), (outcome) => checkPostcondition(action.postcondition, outcome.result))
    })
  })
}

/**
 * The `StepExecutor` layer over `definitions`: builds each executor (in list
 * order) and routes to them. Requires what the definitions require; a kind
 * registered twice is a defect when the layer is built.
 */
export const stepExecutorLayer = <const Definitions extends ReadonlyArray<ExecutorDefinition<any, any>>>(
  definitions: Definitions
): Layer.Layer<
  StepExecutor,
  Effect.Error<Definitions[number]["make"]>,
  Effect.Services<Definitions[number]["make"]>
> =>
  Layer.effect(
    StepExecutor,
    Effect.flatMap(
      Effect.forEach(definitions, ({ make, ...registered }) => Effect.map(make, (execute) => ({ ...registered, execute }))),
      (executors) => Effect.sync(() => makeStepExecutor(executors))
    )
  )
