/**
 * The executor registry (services/workflow/executors/registry.ts): a kind
 * contributed by one more definition in the list is dispatched (its services
 * come from the layer graph, its postcondition is checked); the node
 * executor's `args.capability` claim still comes first; `Confirm` and a kind
 * without an executor fail as before (`unsupported_action`, same messages);
 * two executors for one kind are refused when the layer is built.
 */
import { NodeDns } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Exit, Layer } from "effect"
import { NodeDispatch } from "../../../../services/nodes/NodeDispatch.ts"
import { CliSandbox } from "../../../../services/workflow/executors/CliSandbox.ts"
import { defineExecutor, stepExecutorLayer } from "../../../../services/workflow/executors/registry.ts"
import { EXECUTORS } from "../../../../services/workflow/executors/StepExecutorLive.ts"
import { StepExecutor } from "../../../../services/workflow/StepExecutor.ts"
import { context, failureOf, httpStepContext, step } from "./support.ts"

/** A stand-in model the extra executor needs: the registry must build it from the layer graph. */
class FakeModel extends Context.Service<FakeModel, { readonly answer: (prompt: string) => string }>()("test/FakeModel") {}

/** An `Llm` executor: one definition. */
const LlmExecutor = defineExecutor({
  kinds: ["Llm"],
  make: Effect.map(FakeModel, (model) => (action) =>
    Effect.succeed({ result: { status: "answered", text: model.answer(String(action.args.prompt)) } }))
})

/** The gateway's own executors' services: no node answers, CLI off. */
const gatewayExecutorServices = Layer.mergeAll(
  httpStepContext().layer,
  NodeDns.layer,
  Layer.succeed(NodeDispatch, NodeDispatch.of({
    dispatch: (input) => Effect.succeed({ node_id: "n1", run_id: "r", step_id: "s", attempt_id: "a", result: { on: input.capability } }),
    evidence: () => Effect.void,
    inFlight: () => 0
  })),
  CliSandbox.layerWith({ enabled: false, allowUnsandboxed: false, hidden: [] })
)

const withLlm = stepExecutorLayer([...EXECUTORS, LlmExecutor]).pipe(
  Layer.provide(gatewayExecutorServices),
  Layer.provide(Layer.succeed(FakeModel, FakeModel.of({ answer: (prompt) => `re: ${prompt}` })))
)
const gatewayOnly = stepExecutorLayer(EXECUTORS).pipe(Layer.provide(gatewayExecutorServices))

describe("executor registry", () => {
  it.effect("dispatches a kind contributed by one more definition, and checks its postcondition", () =>
    Effect.gen(function*() {
      const executor = yield* StepExecutor
      const outcome = yield* executor.execute(step("Llm", { prompt: "hello" }), context())
      expect(outcome.result).toEqual({ status: "answered", text: "re: hello" })
      const failed = yield* failureOf(executor.execute(step("Llm", { prompt: "x" }, { postcondition: { status: "refused" } }), context()))
      expect(failed.code).toBe("postcondition_failed")
      // args.capability is claimed by the node executor before any kind.
      expect((yield* executor.execute(step("Llm", { capability: "gpu.infer" }), context())).result).toEqual({ on: "gpu.infer" })
      // The others are as they were.
      expect((yield* executor.execute(step("Desktop", {}), context())).result).toEqual({ on: "svc.desktop" })
      expect((yield* failureOf(executor.execute(step("CLI", { argv: ["true"] }), context()))).code).toBe("unsupported_action")
    }).pipe(Effect.provide(withLlm)))

  it.effect("without the definition, the kind and any unknown kind fail as before; Confirm is never executed", () =>
    Effect.gen(function*() {
      const executor = yield* StepExecutor
      for (const kind of ["Llm", "Research", "Pay"] as const) {
        const failed = yield* failureOf(executor.execute(step(kind, {}), context()))
        expect({ code: failed.code, message: failed.message }).toEqual({
          code: "unsupported_action",
          message: `no executor for action kind ${kind}`
        })
      }
      const confirm = yield* failureOf(executor.execute(step("Confirm", { capability: "svc.desktop" }), context()))
      expect({ code: confirm.code, message: confirm.message }).toEqual({
        code: "unsupported_action",
        message: "Confirm steps are not executed: the engine pauses the run for an approval"
      })
    }).pipe(Effect.provide(gatewayOnly)))

  it.effect("refuses two executors for one kind when the layer is built", () =>
    Effect.gen(function*() {
      const twice = stepExecutorLayer([...EXECUTORS, defineExecutor({ kinds: ["Http"], make: Effect.succeed(() => Effect.never) })])
      const exit = yield* Effect.exit(Layer.build(twice.pipe(Layer.provide(gatewayExecutorServices))).pipe(Effect.scoped))
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("two executors are registered for action kind Http")
    }))
})
