/**
 * Rotation and revocation of secret handles as the secret store drives them
 * (`SecretReferences`, implemented over the profiles table) on every test
 * database: repoint moves every handle column, revocation disables the active
 * profiles that reference the handle, and both roll back with the caller's
 * transaction.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { AuthProfileReferences } from "../../../services/auth-profiles/AuthProfiles.ts"
import { AuthProfilesRepo } from "../../../services/auth-profiles/AuthProfilesRepo.ts"
import type { AuthProfile } from "../../../services/auth-profiles/schema.ts"
import { migrationsTable } from "../../../layers/storage/migrations.ts"
import { SecretReferences } from "../../../services/secrets/SecretStore.ts"
import { testDatabases } from "../../support/databases.ts"

const profile = (id: string, over: Partial<AuthProfile> = {}): AuthProfile => ({
  auth_profile_id: id,
  agent_id: "default",
  provider: "openai",
  type: "api_key",
  secret_handles: { api_key: "old" },
  status: "active",
  created_at: "2026-01-01T00:00:00.000Z",
  updated_at: "2026-01-01T00:00:00.000Z",
  ...over
})

for (const db of testDatabases) {
  describe(`SecretReferences over auth profiles on ${db.name}`, () => {
    const layer = () => AuthProfileReferences.pipe(
      Layer.provideMerge(AuthProfilesRepo.layer),
      Layer.provideMerge(db.make())
    )

    it.effect("migrates once; repoint moves every handle column that points at the old handle", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.provide(Effect.asVoid(AuthProfilesRepo), Layer.fresh(AuthProfilesRepo.layer))
        const applied = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql(migrationsTable("auth_profiles"))}`
        expect(Number(applied[0].n)).toBe(1)

        const repo = yield* AuthProfilesRepo
        const refs = yield* SecretReferences
        yield* repo.insert(profile("p1"))
        yield* repo.insert(profile("p2", { type: "oauth", secret_handles: { access_token: "old", refresh_token: "old" }, status: "disabled", disabled_reason: "x" }))
        yield* repo.insert(profile("p3", { secret_handles: { api_key: "other" } }))
        expect(yield* refs.repoint("old", "new")).toBe(2)
        expect((yield* repo.get("p1"))?.secret_handles).toEqual({ api_key: "new" })
        const p2 = yield* repo.get("p2")
        expect(p2?.secret_handles).toEqual({ access_token: "new", refresh_token: "new" })
        expect(p2?.status).toBe("disabled")
        expect(p2?.updated_at).not.toBe("2026-01-01T00:00:00.000Z")
        expect(yield* repo.get("p3")).toEqual(profile("p3", { secret_handles: { api_key: "other" } }))
        expect(yield* refs.repoint("old", "newer")).toBe(0)
      }).pipe(Effect.provide(layer())))

    it.effect("handleRevoked disables the active profiles referencing the handle, naming it", () =>
      Effect.gen(function*() {
        const repo = yield* AuthProfilesRepo
        const refs = yield* SecretReferences
        yield* repo.insert(profile("a1", { secret_handles: { api_key: "h1" } }))
        yield* repo.insert(profile("a2", { type: "oauth", secret_handles: { access_token: "t", refresh_token: "h1" } }))
        yield* repo.insert(profile("a3", { secret_handles: { api_key: "h1" }, status: "disabled", disabled_reason: "manual" }))
        yield* repo.insert(profile("a4", { secret_handles: { api_key: "h2" } }))
        expect(yield* refs.handleRevoked("h1")).toBe(2)
        for (const id of ["a1", "a2"]) {
          expect(yield* repo.get(id)).toMatchObject({ status: "disabled", disabled_reason: "secret h1 revoked" })
        }
        expect(yield* repo.get("a3")).toMatchObject({ status: "disabled", disabled_reason: "manual" })
        expect((yield* repo.get("a4"))?.status).toBe("active")
        expect(yield* refs.handleRevoked("h1")).toBe(0)
      }).pipe(Effect.provide(layer())))

    it.effect("runs inside the caller's transaction: a failure after it rolls it back", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* AuthProfilesRepo
        const refs = yield* SecretReferences
        yield* repo.insert(profile("r1", { secret_handles: { api_key: "k" } }))
        const exit = yield* Effect.exit(sql.withTransaction(Effect.gen(function*() {
          expect(yield* refs.repoint("k", "k2")).toBe(1)
          expect(yield* refs.handleRevoked("k2")).toBe(1)
          return yield* Effect.fail("propagation failed")
        })))
        expect(Exit.isFailure(exit)).toBe(true)
        expect(yield* repo.get("r1")).toEqual(profile("r1", { secret_handles: { api_key: "k" } }))
        yield* sql.withTransaction(refs.repoint("k", "k3"))
        expect((yield* repo.get("r1"))?.secret_handles).toEqual({ api_key: "k3" })
      }).pipe(Effect.provide(layer())))
  })
}
