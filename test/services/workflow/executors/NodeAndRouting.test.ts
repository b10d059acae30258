/**
 * The node executor with a fake NodeDispatch (input, result, each typed
 * error's code), the StepExecutor router (kinds, args.capability, Confirm,
 * unsupported kinds, postconditions applied), and the policy tool mapping.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { NodeDns } from "@effect/platform-node"
import type { DispatchError } from "../../../../services/nodes/errors.ts"
import { NodeDisconnected, NodeTaskFailed, NodeTaskTimeout, NoEligibleNode } from "../../../../services/nodes/errors.ts"
import { type DispatchInput, NodeDispatch } from "../../../../services/nodes/NodeDispatch.ts"
import { ACTION_PRIMITIVE_KINDS } from "../../../../services/planner/schema.ts"
import { CliSandbox } from "../../../../services/workflow/executors/CliSandbox.ts"
import { capabilityOf, makeNodeExecutor } from "../../../../services/workflow/executors/NodeExecutor.ts"
import { StepExecutorLive, UNSUPPORTED_KINDS } from "../../../../services/workflow/executors/StepExecutorLive.ts"
import { commandLine, toolCallOf } from "../../../../services/workflow/executors/toolCall.ts"
import { StepExecutor } from "../../../../services/workflow/StepExecutor.ts"
import { context, failureOf, httpStepContext, step } from "./support.ts"

const ids = { node_id: "n1", run_id: "run-1", step_id: "step-1", attempt_id: "attempt-1" }

const fakeDispatch = (answer: (input: DispatchInput) => Effect.Effect<unknown, DispatchError>) => {
  const calls: Array<DispatchInput> = []
  const service = NodeDispatch.of({
    dispatch: (input) => {
      calls.push(input)
      return Effect.map(answer(input), (result) => ({ ...ids, result, evidence: { shot: "png" } }))
    },
    evidence: () => Effect.void,
    inFlight: () => 0
  })
  return { calls, service }
}

describe("NodeExecutor", () => {
  it.effect("dispatches the capability (args or the kind's default) with the attempt's ids and timeout", () =>
    Effect.gen(function*() {
      const fake = fakeDispatch(() => Effect.succeed({ status: "completed" }))
      const run = makeNodeExecutor(fake.service)
      const outcome = yield* run(step("Web", { url: "https://example.test" }), context({ timeout_ms: 1234 }))
      expect(outcome).toEqual({ result: { status: "completed" }, evidence: { node_id: "n1", evidence: { shot: "png" } } })
      expect(fake.calls[0]).toMatchObject({
        capability: "svc.playwright",
        action: { type: "Web", args: { url: "https://example.test" } },
        run_id: "run-1",
        step_id: "step-1",
        attempt_id: "attempt-1"
      })
      expect(Duration.toMillis(fake.calls[0]!.timeout!)).toBe(1234)

      yield* run(step("Node", { capability: "cli.exec", node_id: "n7" }), context())
      expect(fake.calls[1]).toMatchObject({ capability: "cli.exec", node_id: "n7" })
      expect(capabilityOf(step("Android", {}))).toBe("svc.android")
      expect(capabilityOf(step("Desktop", {}))).toBe("svc.desktop")
      expect(capabilityOf(step("Node", {}))).toBeUndefined()
      expect((yield* failureOf(run(step("Node", {}), context()))).code).toBe("invalid_action")
    }))

  it.effect("maps NodeDispatch's errors to attempt codes", () =>
    Effect.gen(function*() {
      const cases: Array<[DispatchError, string]> = [
        [new NoEligibleNode({ message: "no eligible node for playwright", details: { capability: "playwright", refusals: [] } }), "node_unavailable"],
        [
          new NodeTaskFailed({
            message: "node n1 reported an error",
            details: { ...ids, node_error: { code: "boom", message: "it broke" }, evidence: { log: "trace" } }
          }),
          "node_task_failed"
        ],
        [new NodeTaskTimeout({ message: "node n1 did not answer", details: { ...ids, timeout_ms: 10 } }), "node_timeout"],
        [new NodeDisconnected({ message: "node n1 disconnected", details: ids }), "node_disconnected"]
      ]
      for (const [error, code] of cases) {
        const run = makeNodeExecutor(fakeDispatch(() => Effect.fail(error)).service)
        const failed = yield* failureOf(run(step("Web", {}), context()))
        expect(failed.code).toBe(code)
        expect(failed.message).toBe(error.message)
        if (code === "node_task_failed") expect(failed.evidence).toEqual({ log: "trace" })
      }
    }))
})

describe("StepExecutorLive", () => {
  const fake = fakeDispatch((input) => Effect.succeed({ status: "completed", capability: input.capability }))
  const layer = StepExecutorLive.pipe(
    Layer.provide([
      httpStepContext().layer,
      NodeDns.layer,
      Layer.succeed(NodeDispatch, fake.service),
      CliSandbox.layerWith({ enabled: false, allowUnsandboxed: false, hidden: [] })
    ])
  )

  it.effect("routes by kind; args.capability sends any kind to a node; Confirm and kinds without executor are unsupported", () =>
    Effect.gen(function*() {
      const executor = yield* StepExecutor
      expect((yield* executor.execute(step("Desktop", {}), context())).result).toMatchObject({ capability: "svc.desktop" })
      expect((yield* executor.execute(step("Message", { capability: "sms.send" }), context())).result).toMatchObject({
        capability: "sms.send"
      })
      const confirm = yield* failureOf(executor.execute(step("Confirm", {}), context()))
      expect(confirm.code).toBe("unsupported_action")
      expect(confirm.message).toContain("Confirm")
      expect(UNSUPPORTED_KINDS).toEqual(["Research", "Decide", "Llm", "Mcp", "Message", "Pay", "Store", "Watch", "Confirm"])
      for (const kind of UNSUPPORTED_KINDS.filter((k) => k !== "Confirm")) {
        const failed = yield* failureOf(executor.execute(step(kind, {}), context()))
        expect(failed.code).toBe("unsupported_action")
        expect(failed.message).toContain(kind)
      }
      const cli = yield* failureOf(executor.execute(step("CLI", { argv: ["true"] }), context()))
      expect(cli.code).toBe("unsupported_action")
      expect(cli.message).toContain("SVC_CLI_ENABLED=1")
    }).pipe(Effect.provide(layer)))

  it.effect("checks the postcondition on the result", () =>
    Effect.gen(function*() {
      const executor = yield* StepExecutor
      yield* executor.execute(step("Web", {}, { postcondition: { status: "completed" } }), context())
      const failed = yield* failureOf(executor.execute(step("Web", {}, { postcondition: { status: "sent" } }), context()))
      expect(failed.code).toBe("postcondition_failed")
      expect(failed.message).toContain("status")
      expect(failed.result).toMatchObject({ status: "completed" })
      const malformed = yield* failureOf(executor.execute(step("Web", {}, { postcondition: "yes" }), context()))
      expect(malformed.code).toBe("invalid_action")
    }).pipe(Effect.provide(layer)))
})

describe("toolCallOf", () => {
  it("maps each kind to the policy tool call", () => {
    expect(toolCallOf(step("Http", { url: "https://user:pw@api.example.test/v1?q=1" }))).toEqual({
      tool_id: "tool.http.fetch",
      tool_match_target: "https://api.example.test/v1?q=1",
      url: "https://api.example.test/v1?q=1"
    })
    expect(toolCallOf(step("CLI", { argv: ["git", "commit", "-m", "a message", ""] }))).toEqual({
      tool_id: "tool.exec",
      tool_match_target: "git commit -m \"a message\" \"\""
    })
    expect(toolCallOf(step("CLI", { cmd: "ls", args: ["-l"] }))).toEqual({ tool_id: "tool.exec", tool_match_target: "ls -l" })
    expect(toolCallOf(step("Web", {}))).toEqual({ tool_id: "tool.node.dispatch", tool_match_target: "svc.playwright" })
    expect(toolCallOf(step("Http", { capability: "http" }))).toEqual({ tool_id: "tool.node.dispatch", tool_match_target: "http" })
    expect(toolCallOf(step("Node", {}))).toEqual({ tool_id: "tool.node.dispatch", tool_match_target: "" })
    expect(toolCallOf(step("Confirm", {}))).toBeUndefined()
    expect(toolCallOf(step("Llm", {}))).toEqual({ tool_id: "tool.llm", tool_match_target: "" })
    expect(toolCallOf(step("Pay", {}))).toEqual({ tool_id: "tool.pay", tool_match_target: "" })
    for (const kind of ACTION_PRIMITIVE_KINDS) {
      if (kind !== "Confirm") expect(toolCallOf(step(kind, {}))?.tool_id).toMatch(/^tool\./)
    }
    expect(commandLine(["echo", "it's"])).toBe("echo \"it's\"")
  })
})
