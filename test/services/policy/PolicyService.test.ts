/**
 * `PolicyService` is a thin wrapper over the engine: same decisions, never fails.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { PolicyCheckRequest } from "../../../services/policy/schema.ts"
import { evaluatePolicy, PolicyService } from "../../../services/policy/index.ts"

describe("PolicyService", () => {
  it.layer(PolicyService.layer)((it) => {
    it.effect("check returns the documented sample decision", () =>
      Effect.gen(function*() {
        const policy = yield* PolicyService
        const decision = yield* policy.check({
          spend: { amount_minor_units: 8750, currency: "EUR" },
          pii: { categories: ["basic_contact"] },
          legal: { flags: [] },
          connector: { scope: "mcp://calendar" }
        })
        expect(decision.decision).toBe("allow")
        expect(decision.rules.map((r) => r.detail)).toEqual([
          "Amount EUR 87.50 within auto-approval limit EUR 100.00.",
          "PII categories acceptable for automated handling: basic_contact.",
          "No legal flags raised.",
          "Connector scope mcp://calendar already granted."
        ])
      }))

    it.effect("check on an empty request asks for approval", () =>
      Effect.gen(function*() {
        const decision = yield* (yield* PolicyService).check({})
        expect(decision.decision).toBe("require_approval")
        expect(decision.rules).toHaveLength(3)
      }))

    it.effect.prop("check agrees with the pure engine", { request: PolicyCheckRequest }, ({ request }) =>
      Effect.gen(function*() {
        const decision = yield* (yield* PolicyService).check(request)
        expect(decision).toEqual(evaluatePolicy(request))
      }))
  })
})
