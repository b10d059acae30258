/**
 * `oauth_pending` on every test database: taking a pending authorization is
 * one conditional write, so it succeeds once, only for its provider and only
 * before it expires; housekeeping deletes expired rows.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { migrationsTable } from "../../../layers/storage/migrations.ts"
import { type PendingRow, PendingRepo } from "../../../services/provider-oauth/PendingRepo.ts"
import { testDatabases } from "../../support/databases.ts"

const row = (state: string, over: Partial<PendingRow> = {}): PendingRow => ({
  state,
  provider_id: "example",
  agent_id: "default",
  pkce_verifier: "v".repeat(43),
  redirect_uri: "https://gw.test/providers/example/oauth/callback",
  created_at: "2026-01-01T00:00:00.000Z",
  expires_at: "2026-01-01T00:10:00.000Z",
  ...over
})

for (const db of testDatabases) {
  describe(`PendingRepo on ${db.name}`, () => {
    it.effect("consumes a state once, for its provider, before it expires", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.provide(Effect.asVoid(PendingRepo), Layer.fresh(PendingRepo.layer))
        const applied = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql(migrationsTable("provider_oauth"))}`
        expect(Number(applied[0].n)).toBe(1)

        const repo = yield* PendingRepo
        yield* repo.insert(row("s1"))
        yield* repo.insert(row("s2"))
        yield* repo.insert(row("s3"))

        const during = "2026-01-01T00:05:00.000Z"
        expect(yield* repo.consume("s1", "other", during)).toBeUndefined()
        expect(yield* repo.consume("s1", "example", during)).toEqual(row("s1"))
        expect(yield* repo.consume("s1", "example", during)).toBeUndefined()
        expect(yield* repo.consume("unknown", "example", during)).toBeUndefined()
        // At expires_at it is no longer valid.
        expect(yield* repo.consume("s2", "example", "2026-01-01T00:10:00.000Z")).toBeUndefined()

        // Concurrent takers: exactly one wins.
        const results = yield* Effect.all(
          Array.from({ length: 8 }, () => repo.consume("s3", "example", during)),
          { concurrency: "unbounded" }
        )
        expect(results.filter((r) => r !== undefined)).toHaveLength(1)

        expect(yield* repo.deleteExpired("2026-01-01T00:10:00.000Z")).toBe(3)
        const left = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM oauth_pending`
        expect(Number(left[0].n)).toBe(0)
      }).pipe(Effect.provide(PendingRepo.layer.pipe(Layer.provideMerge(db.make())))))
  })
}
