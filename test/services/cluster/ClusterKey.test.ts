/**
 * The cluster's master key check (issue 27 §1) on PostgreSQL, a fresh schema
 * per test: the first instance records its key id (a digest, never the
 * key), an instance with the same key starts, one with another key refuses
 * to start with `ClusterKeyMismatch`; without `SVC_CLUSTER=1` nothing is
 * checked or recorded.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayConfig } from "../../../layers/config.ts"
import { keyId } from "../../../layers/secrets/crypto.ts"
import { parseKey } from "../../../layers/secrets/masterKey.ts"
import { ClusterKey } from "../../../services/cluster/ClusterKey.ts"
import { defaultSettings } from "../../../src/app/settings.ts"
import { postgresUrl, sharedPostgresSchema } from "../../support/databases.ts"

const KEY_A = "a".repeat(64)
const KEY_B = "b".repeat(64)

/** A home with a master key file holding `key` (64 hex characters). */
const homeWithKey = (key: string | undefined) => {
  const home = mkdtempSync(join(tmpdir(), "svc-cluster-key-"))
  if (key !== undefined) writeFileSync(join(home, "secrets.master.key"), `${key}\n`, { mode: 0o600 })
  return home
}

/** One instance's `ClusterKey` over `storage`, with `home`'s key file. */
const instance = (storage: Layer.Layer<SqlClient.SqlClient, unknown>, home: string, cluster = true) =>
  ClusterKey.layer.pipe(
    Layer.provide(Layer.succeed(GatewayConfig, defaultSettings({
      home,
      clusterEnabled: cluster,
      databaseUrl: postgresUrl,
      clusterSecret: cluster ? Redacted.make("c".repeat(32)) : undefined
    }))),
    Layer.provide(storage)
  )

const keyIdOf = (hex: string) => keyId(parseKey(Buffer.from(hex))!)

/** The key id the instance's `ClusterKey` holds. */
const keyIdOfInstance = Effect.map(ClusterKey, (k) => k.keyId)

describe.skipIf(postgresUrl === undefined)("ClusterKey on PostgreSQL", () => {
  /** Runs `body` with a fresh schema (dropped after) and removes the homes it made. */
  const withSchema = <A, E>(body: (db: Awaited<ReturnType<typeof sharedPostgresSchema>>, homes: Array<string>) => Effect.Effect<A, E>) =>
    Effect.gen(function*() {
      const db = yield* Effect.promise(() => sharedPostgresSchema(postgresUrl!))
      const homes: Array<string> = []
      return yield* body(db, homes).pipe(Effect.ensuring(Effect.promise(async () => {
        for (const h of homes) rmSync(h, { recursive: true, force: true })
        await db.drop()
      })))
    })

  it.effect("the first instance records its key id; another with the same key starts", () =>
    withSchema((db, homes) =>
      Effect.gen(function*() {
        homes.push(homeWithKey(KEY_A), homeWithKey(KEY_A))
        const first = yield* Effect.scoped(Effect.provide(keyIdOfInstance, instance(db.layer(), homes[0]!)))
        const second = yield* Effect.scoped(Effect.provide(keyIdOfInstance, instance(db.layer(), homes[1]!)))
        expect([first, second]).toEqual([keyIdOf(KEY_A), keyIdOf(KEY_A)])
        const rows = yield* Effect.scoped(Effect.provide(
          Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ key_id: string }>`SELECT key_id FROM gateway_master_key`),
          db.layer()
        ))
        expect(rows.map((r) => r.key_id)).toEqual([keyIdOf(KEY_A)])
        // A digest, never the key.
        expect(JSON.stringify(rows)).not.toContain(KEY_A)
      })))

  it.effect("an instance whose master key differs refuses to start, naming both key ids and the fix", () =>
    withSchema((db, homes) =>
      Effect.gen(function*() {
        homes.push(homeWithKey(KEY_A), homeWithKey(KEY_B))
        yield* Effect.scoped(Layer.build(instance(db.layer(), homes[0]!)))
        const exit = yield* Effect.exit(Effect.scoped(Layer.build(instance(db.layer(), homes[1]!))))
        expect(Exit.isFailure(exit)).toBe(true)
        const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        const failure = error?._tag === "Fail" ? error.error as { _tag: string; message: string; key_id: string; cluster_key_id: string } : undefined
        expect(failure?._tag).toBe("ClusterKeyMismatch")
        expect([failure?.key_id, failure?.cluster_key_id]).toEqual([keyIdOf(KEY_B), keyIdOf(KEY_A)])
        expect(failure?.message).toMatch(/every instance needs the same master key .*SVC_SECRETS_MASTER_KEY_PATH/)
        expect(failure?.message).not.toContain(KEY_B)
      })))

  it.effect("a missing key file is generated, as the db secret provider does, and recorded", () =>
    withSchema((db, homes) =>
      Effect.gen(function*() {
        homes.push(homeWithKey(undefined))
        const id = yield* Effect.scoped(Effect.provide(keyIdOfInstance, instance(db.layer(), homes[0]!)))
        const written = readFileSync(join(homes[0]!, "secrets.master.key"))
        expect(id).toBe(keyId(parseKey(written)!))
      })))

  it.effect("an instance without a key file joining a cluster that has a key is refused, and no key file is left behind", () =>
    withSchema((db, homes) =>
      Effect.gen(function*() {
        homes.push(homeWithKey(KEY_A), homeWithKey(undefined))
        yield* Effect.scoped(Layer.build(instance(db.layer(), homes[0]!)))
        const exit = yield* Effect.exit(Effect.scoped(Layer.build(instance(db.layer(), homes[1]!))))
        const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        const failure = error?._tag === "Fail" ? error.error as { _tag: string; message: string; cluster_key_id: string } : undefined
        expect(failure).toMatchObject({ _tag: "ClusterKeyMismatch", cluster_key_id: keyIdOf(KEY_A) })
        expect(failure?.message).toMatch(/secrets.master.key is missing, but this cluster's instances use key id/)
        expect(existsSync(join(homes[1]!, "secrets.master.key"))).toBe(false)
      })))

  it.effect("without SVC_CLUSTER=1 nothing is checked or recorded", () =>
    withSchema((db, homes) =>
      Effect.gen(function*() {
        homes.push(homeWithKey(KEY_B))
        const id = yield* Effect.scoped(Effect.provide(keyIdOfInstance, instance(db.layer(), homes[0]!, false)))
        expect(id).toBeUndefined()
        const tables = yield* Effect.scoped(Effect.provide(
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ n: number }>`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = ${db.schema} AND table_name = 'gateway_master_key'`),
          db.layer()
        ))
        expect(tables[0]?.n).toBe(0)
      })))
})
