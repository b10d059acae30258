/**
 * Plan storage on every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): the request_id claim, the stored response
 * and the migrations. (The plan's audit records are the audit chain's:
 * test/services/planner/Planner.test.ts, test/services/audit.)
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { migrate } from "../../../layers/storage/migrations.ts"
import { plannerMigrations } from "../../../services/planner/migrations/index.ts"
import { PlansRepo } from "../../../services/planner/PlansRepo.ts"
import type { PlanResponse } from "../../../services/planner/schema.ts"
import type { PolicyDecision } from "../../../services/policy/schema.ts"
import { testDatabases } from "../../support/databases.ts"

const decision: PolicyDecision = {
  decision: "allow",
  rules: [{ rule: "spend_limit", outcome: "allow", detail: "Amount EUR 1.00 within auto-approval limit EUR 100.00." }]
}

const claim = (plan_id: string, request_id: string) => ({
  plan_id,
  request_id,
  status: "success" as const,
  request_json: `{"request_id":"${request_id}"}`,
  decision_json: decision,
  created_at: "2026-01-01T00:00:00.000Z"
})

const response = (plan_id: string, request_id: string): PlanResponse => ({
  plan_id,
  request_id,
  created_at: "2026-01-01T00:00:00.000Z",
  trace_id: "00000000-0000-4000-8000-000000000001",
  status: "success",
  steps: [{ type: "Research", args: {} }, { type: "Pay", args: { amount_minor_units: 100 }, idempotency_key: "k" }],
  summary: { synopsis: "s" }
})

for (const db of testDatabases) {
  layer(PlansRepo.layer.pipe(Layer.provideMerge(db.make())))(`PlansRepo on ${db.name}`, (it) => {
    it.effect("claims a request_id once; a second claim writes nothing", () =>
      Effect.gen(function*() {
        const repo = yield* PlansRepo
        expect(yield* repo.claim(claim("plan-a", "req-a"))).toBe(true)
        expect(yield* repo.claim({ ...claim("plan-b", "req-a"), status: "failure" })).toBe(false)
        expect(yield* repo.findByPlanId("plan-b")).toBeUndefined()
        const stored = yield* repo.findByRequestId("req-a")
        expect(stored).toEqual({ ...claim("plan-a", "req-a"), response_json: null })
      }))

    it.effect("stores and reads back the response and the decision", () =>
      Effect.gen(function*() {
        const repo = yield* PlansRepo
        yield* repo.transaction(Effect.gen(function*() {
          yield* repo.claim(claim("plan-c", "req-c"))
          yield* repo.complete("plan-c", response("plan-c", "req-c"))
        }))
        const stored = yield* repo.findByPlanId("plan-c")
        expect(stored?.response_json).toEqual(response("plan-c", "req-c"))
        expect(stored?.decision_json).toEqual(decision)
        expect(yield* repo.findByRequestId("req-unknown")).toBeUndefined()
      }))

    it.effect("rolls the claim back with its transaction", () =>
      Effect.gen(function*() {
        const repo = yield* PlansRepo
        const failed = yield* Effect.flip(repo.transaction(Effect.gen(function*() {
          yield* repo.claim(claim("plan-d", "req-d"))
          return yield* Effect.fail("boom" as const)
        })))
        expect(failed).toBe("boom")
        expect(yield* repo.findByRequestId("req-d")).toBeUndefined()
        expect(yield* repo.claim(claim("plan-d", "req-d"))).toBe(true)
      }))

    it.effect("applies its migrations once", () =>
      Effect.gen(function*() {
        expect(yield* migrate("planner", plannerMigrations)).toEqual([])
      }))
  })
}
