/**
 * `SVC_EXEC_CONCURRENCY` (issue 12 §2): at most N attempts run at once across
 * runs; the others wait for a slot and run when one frees.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { limitConcurrency } from "../../../../services/workflow/executors/concurrency.ts"
import { StepExecutor } from "../../../../services/workflow/StepExecutor.ts"

const context = (i: number) => ({ run_id: `r${i}`, step_index: 0, step_id: `r${i}:0`, attempt_id: `r${i}:0:1`, attempt: 1, timeout_ms: 1000 })

describe("limitConcurrency", () => {
  it.effect("runs at most `permits` attempts at once; a finished attempt frees its slot", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let running = 0
      let peak = 0
      let started = 0
      const inner = StepExecutor.of({
        execute: () =>
          Effect.gen(function*() {
            running++
            started++
            peak = Math.max(peak, running)
            yield* Deferred.await(gate)
            running--
            return { result: null }
          })
      })
      const limited = yield* limitConcurrency(inner, 2)
      const fibers = yield* Effect.forEach([1, 2, 3, 4, 5], (i) => Effect.forkChild(limited.execute({ type: "Llm", args: {} }, context(i))))
      yield* Effect.yieldNow
      yield* Effect.yieldNow
      expect(started).toBe(2)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.joinAll(fibers)
      expect(started).toBe(5)
      expect(peak).toBe(2)
    }))
})
