/**
 * The approvals table on every test database: migrations apply once (a second
 * repository on the same database finds them applied), rows round-trip to
 * the contract, and each transition is one conditional write that only a
 * pending approval passes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { ApprovalsRepo, type NewApprovalRow } from "../../../services/approvals/ApprovalsRepo.ts"
import { migrationsTable } from "../../../layers/storage/migrations.ts"
import { testDatabases } from "../../support/databases.ts"

const row = (plan: string, over: Partial<NewApprovalRow> = {}): NewApprovalRow => ({
  kind: "pii",
  status: "pending",
  plan_id: plan,
  step_index: 1,
  prompt: "share the address?",
  context: { nested: { list: [1, "two", null] } },
  created_at: "2026-01-01T00:00:00.000Z",
  expires_at: "2026-01-02T00:00:00.000Z",
  resolved_at: null,
  resolved_by: null,
  reason: null,
  scope_key: null,
  scope_lane: "main",
  scope_run_id: null,
  scope_step_index: null,
  ...over
})

const BY = { kind: "ws", principal: "dev-1" } as const

for (const db of testDatabases) {
  describe(`ApprovalsRepo on ${db.name}`, () => {
    it.effect("migrates once, round-trips rows and writes each transition conditionally", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        // A second repository on the same database: the migrations are already applied.
        yield* Effect.provide(Effect.asVoid(ApprovalsRepo), Layer.fresh(ApprovalsRepo.layer))
        const applied = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql(migrationsTable("approvals"))}`
        expect(Number(applied[0].n)).toBe(1)

        const repo = yield* ApprovalsRepo
        const first = yield* repo.insert(row("p1"))
        expect(first).toEqual({
          id: 1,
          kind: "pii",
          status: "pending",
          plan_id: "p1",
          step_index: 1,
          prompt: "share the address?",
          context: { nested: { list: [1, "two", null] } },
          created_at: "2026-01-01T00:00:00.000Z",
          expires_at: "2026-01-02T00:00:00.000Z",
          resolution: null,
          scope: { lane: "main" }
        })
        expect(yield* repo.get(1)).toEqual(first)
        expect(yield* repo.get(2)).toBeUndefined()
        yield* repo.insert(row("p2", { expires_at: "2026-01-01T12:00:00.000Z", scope_run_id: "r" }))
        yield* repo.insert(row("p3"))
        expect(yield* repo.nextExpiry).toBe("2026-01-01T12:00:00.000Z")

        const at = "2026-01-01T06:00:00.000Z"
        const decided = yield* repo.decide(1, { status: "denied", at, by: BY, reason: "no" })
        expect(decided?.resolution).toEqual({ decision: "denied", resolved_at: at, resolved_by: BY, reason: "no" })
        expect(yield* repo.decide(1, { status: "approved", at, by: BY, reason: undefined })).toBeUndefined()
        expect((yield* repo.get(1))?.status).toBe("denied")

        expect((yield* repo.expireDue("2026-01-01T11:59:59.999Z"))).toEqual([])
        const expired = yield* repo.expireDue("2026-01-01T12:00:00.000Z")
        expect(expired.map((a) => [a.id, a.status, a.resolution?.resolved_at])).toEqual([[2, "expired", "2026-01-01T12:00:00.000Z"]])
        expect(yield* repo.cancel({ runId: "r" }, at, "cancelled")).toEqual([])
        expect((yield* repo.cancel({ planId: "p3" }, at, "plan stopped")).map((a) => a.resolution?.reason)).toEqual(["plan stopped"])
        expect(yield* repo.nextExpiry).toBeUndefined()
        expect((yield* repo.list({ status: "pending" }))).toEqual([])

        const columns = Object.keys((yield* sql`SELECT * FROM approvals WHERE id = 1`)[0]!)
        expect(columns.some((c) => /token/i.test(c))).toBe(false)
      }).pipe(Effect.provide(ApprovalsRepo.layer.pipe(Layer.provideMerge(db.make())))))
  })
}
