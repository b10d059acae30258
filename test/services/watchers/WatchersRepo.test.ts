/**
 * The watchers tables on every test database: rows round-trip to the wire
 * record (ids and slots are numbers, `active` a boolean, `trigger_config`
 * parsed JSON, on SQLite and PostgreSQL alike), deleted watchers are gone
 * for every read and write, and a firing is inserted once per watcher and
 * dedupe key.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { migrationsTable } from "../../../layers/storage/migrations.ts"
import { WatchersRepo } from "../../../services/watchers/WatchersRepo.ts"
import { testDatabases } from "../../support/databases.ts"

const T0 = "2026-01-01T00:00:00.000Z"
const T1 = "2026-01-01T00:01:00.000Z"

for (const db of testDatabases) {
  describe(`WatchersRepo on ${db.name}`, () => {
    it.effect("round-trips watchers; setActive and softDelete are conditional on a live watcher", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.provide(Effect.asVoid(WatchersRepo), Layer.fresh(WatchersRepo.layer))
        const applied = yield* sql<{ n: number | bigint }>`SELECT COUNT(*) AS n FROM ${sql(migrationsTable("watchers"))}`
        expect(Number(applied[0].n)).toBe(2)

        const repo = yield* WatchersRepo
        const periodic = yield* repo.insert({
          plan_id: "plan-a",
          trigger_type: "periodic",
          trigger_config: { interval_ms: 60_000, steps: [{ type: "Confirm", args: {} }] },
          created_at: T0
        })
        expect(periodic).toEqual({
          id: 1,
          plan_id: "plan-a",
          trigger_type: "periodic",
          trigger_config: { interval_ms: 60_000, steps: [{ type: "Confirm", args: {} }] },
          active: true,
          created_at: T0,
          updated_at: T0
        })
        const done = yield* repo.insert({ plan_id: "plan-a", trigger_type: "plan_complete", trigger_config: undefined, created_at: T0 })
        expect(done.id).toBe(2)
        expect("trigger_config" in done).toBe(false)
        yield* repo.insert({ plan_id: "plan-b", trigger_type: "plan_complete", trigger_config: undefined, created_at: T0 })

        expect(yield* repo.get(1)).toEqual(periodic)
        expect(yield* repo.get(99)).toBeUndefined()
        expect((yield* repo.listActive()).map((w) => w.id)).toEqual([1, 2, 3])
        expect((yield* repo.listActive("periodic")).map((w) => w.id)).toEqual([1])
        expect((yield* repo.listPlanComplete("plan-a")).map((w) => w.id)).toEqual([2])

        expect(yield* repo.setActive(1, false, T1)).toBe(true)
        expect(yield* repo.get(1)).toEqual({ ...periodic, active: false, updated_at: T1 })
        expect((yield* repo.listActive()).map((w) => w.id)).toEqual([2, 3])
        expect(yield* repo.setActive(1, true, T1)).toBe(true)
        expect(yield* repo.setActive(99, true, T1)).toBe(false)

        expect(yield* repo.softDelete(2, T1)).toBe(true)
        expect(yield* repo.softDelete(2, T1)).toBe(false)
        expect(yield* repo.get(2)).toBeUndefined()
        expect(yield* repo.setActive(2, true, T1)).toBe(false)
        expect((yield* repo.listPlanComplete("plan-a"))).toEqual([])
        expect((yield* repo.listActive()).map((w) => w.id)).toEqual([1, 3])
      }).pipe(Effect.provide(WatchersRepo.layer.pipe(Layer.provideMerge(db.make())))))

    it.effect("inserts a firing once per (watcher, dedupe key) and records how it ended", () =>
      Effect.gen(function*() {
        const repo = yield* WatchersRepo
        const watcher = yield* repo.insert({ plan_id: "plan-a", trigger_type: "periodic", trigger_config: { interval_ms: 3_600_000 }, created_at: T0 })
        const other = yield* repo.insert({ plan_id: "plan-b", trigger_type: "periodic", trigger_config: { interval_ms: 3_600_000 }, created_at: T0 })
        // A real slot (ms since the epoch) does not fit 32 bits: BIGINT on PostgreSQL.
        const slot = 1_767_225_600_000
        const firing = (id: string, watcher_id: number) => ({
          firing_id: id,
          watcher_id,
          trigger_type: "periodic" as const,
          dedupe_key: `slot:${slot}`,
          slot,
          nonce_digest: null,
          nonce_key: null,
          source_run_id: null,
          created_at: T0
        })
        expect(yield* repo.insertFiring(firing("firing-1", watcher.id))).toBe(true)
        expect(yield* repo.insertFiring(firing("firing-2", watcher.id))).toBe(false)
        expect(yield* repo.insertFiring(firing("firing-3", other.id))).toBe(true)
        yield* repo.finishFiring("firing-1", { status: "enqueued", run_id: "run-1", error: null }, T1)
        expect(yield* repo.firings(watcher.id)).toEqual([{
          firing_id: "firing-1",
          watcher_id: watcher.id,
          plan_id: "plan-a",
          trigger_type: "periodic",
          slot,
          nonce_digest: null,
          source_run_id: null,
          status: "enqueued",
          run_id: "run-1",
          error: null,
          created_at: T0
        }])
        expect((yield* repo.firings(other.id)).map((f) => [f.firing_id, f.status])).toEqual([["firing-3", "pending"]])
      }).pipe(Effect.provide(WatchersRepo.layer.pipe(Layer.provideMerge(db.make())))))
  })
}
