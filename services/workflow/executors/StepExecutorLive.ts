/**
 * The `StepExecutor` layer (issue 12 "Executors"; docs/workflow-executors.md):
 * routes each attempt by its action kind, then checks the step's
 * postcondition on the result.
 *
 * | Step | Executor |
 * |---|---|
 * | `Confirm` | none: the engine pauses for an approval; asked anyway → `unsupported_action` |
 * | any step with `args.capability`, `Web`, `Android`, `Desktop`, `Node` | node (`NodeDispatch`) |
 * | `Http` | Http (Node `http`/`https`, pinned to checked addresses) |
 * | `CLI` | CLI (in the `CliSandbox` chosen at start; only with `SVC_CLI_ENABLED=1`) |
 * | `Research`, `Decide`, `Llm`, `Mcp`, `Message`, `Pay`, `Store`, `Watch` | none → `unsupported_action` naming the kind |
 *
 * @module
 */
import { Effect, Layer } from "effect"
import type { ActionPrimitive, ActionPrimitiveKind } from "../../planner/schema.ts"
import { ACTION_PRIMITIVE_KINDS } from "../../planner/schema.ts"
import { AttemptFailed, type AttemptContext, StepExecutor } from "../StepExecutor.ts"
import { makeCliExecutor } from "./CliExecutor.ts"
import { CliSandbox } from "./CliSandbox.ts"
import { HttpExecutor } from "./HttpExecutor.ts"
import { NodeExecutor } from "./NodeExecutor.ts"
import { checkPostcondition } from "./postconditions.ts"
import { runsOnNode } from "./toolCall.ts"
import type { ActionExecutor } from "./types.ts"

/** Kinds with an executor (besides any step with `args.capability`, which runs on a node). */
export const EXECUTED_KINDS: ReadonlyArray<ActionPrimitiveKind> = ["Http", "CLI", "Web", "Android", "Desktop", "Node"]

/** Kinds no executor runs (a step of one fails with `unsupported_action`, unless it has `args.capability`). */
export const UNSUPPORTED_KINDS: ReadonlyArray<ActionPrimitiveKind> = ACTION_PRIMITIVE_KINDS.filter((k) =>
  !EXECUTED_KINDS.includes(k)
)

/** The router over the given executors. */
export const makeStepExecutor = (executors: {
  readonly http: ActionExecutor
  readonly cli: ActionExecutor
  readonly node: ActionExecutor
}): StepExecutor["Service"] => {
  const route = (action: ActionPrimitive): ActionExecutor | AttemptFailed => {
    if (action.type === "Confirm") {
      return new AttemptFailed({
        code: "unsupported_action",
        message: "Confirm steps are not executed: the engine pauses the run for an approval"
      })
    }
    if (runsOnNode(action)) return executors.node
    if (action.type === "Http") return executors.http
    if (action.type === "CLI") return executors.cli
    return new AttemptFailed({ code: "unsupported_action", message: `no executor for action kind ${action.type}` })
  }
  return StepExecutor.of({
    execute: (action: ActionPrimitive, context: AttemptContext) => {
      const executor = route(action)
      if (executor instanceof AttemptFailed) return Effect.fail(executor)
      return Effect.tap(executor(action, context), (outcome) => checkPostcondition(action.postcondition, outcome.result))
    }
  })
}

/**
 * `StepExecutor` with the Http, CLI and node executors. Needs
 * `HttpStepContext`, a `Dns`, `NodeDispatch` and the `CliSandbox` chosen at
 * start (`CliSandbox.layer`); the Http targets that get trace headers are
 * `HttpTraceTargets` (none unless provided).
 */
export const StepExecutorLive = Layer.effect(
  StepExecutor,
  Effect.gen(function*() {
    return makeStepExecutor({
      http: yield* HttpExecutor,
      cli: makeCliExecutor(yield* CliSandbox),
      node: yield* NodeExecutor
    })
  })
)
