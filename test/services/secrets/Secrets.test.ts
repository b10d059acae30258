/**
 * The secrets service on every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): storing with the db provider (ciphertext
 * only), agents, versions, resolution records, revocation, rotation with
 * references repointed or rolled back, the SecretRotated/SecretRevoked
 * domain events, the master key checks at start, and the env provider.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted, Result } from "effect"
import { SqlClient } from "effect/sql"
import { existsSync, writeFileSync } from "node:fs"
import { randomBytes } from "node:crypto"
import { makeDbProvider } from "../../../layers/secrets/dbProvider.ts"
import { makeEnvProvider } from "../../../layers/secrets/envProvider.ts"
import { SecretProvider } from "../../../layers/secrets/SecretProvider.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { DomainEvents } from "../../../services/domain-events/DomainEvents.ts"
import { SecretRevoked, SecretRotated } from "../../../services/secrets/domainEvents.ts"
import { SecretResolver, Secrets, SecretStore } from "../../../services/secrets/SecretStore.ts"
import { SecretsRepo } from "../../../services/secrets/SecretsRepo.ts"
import { testDatabases } from "../../support/databases.ts"
import { dbProvider, fakeReferences, keyPath, secretsLayer } from "./support.ts"

const VALUE = "s3cr3t-value-ABC123"
const value = (v: string) => Redacted.make(v)

for (const db of testDatabases) {
  describe(`Secrets (db provider) on ${db.name}`, () => {
    it.effect("stores a secret as ciphertext only and resolves it, recording each resolution", () =>
      Effect.gen(function*() {
        const store = yield* SecretStore
        const handle = yield* store.store({ scope: "webhook:github", value: value(VALUE) })
        expect(handle).toEqual({ handle_id: expect.stringMatching(/^sec_[0-9a-f]{32}$/), provider: "db", scope: "webhook:github", created_at: expect.any(String) })
        expect(yield* store.get(handle.handle_id)).toEqual(handle)
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql`SELECT * FROM secret_versions`
        expect(rows).toHaveLength(1)
        expect(JSON.stringify(rows)).not.toContain(VALUE)
        expect(JSON.stringify(yield* sql`SELECT * FROM secret_handles`)).not.toContain(VALUE)

        const resolver = yield* SecretResolver
        const resolved = yield* resolver.resolve(handle.handle_id, "webhook.signature")
        expect(Redacted.value(resolved)).toBe(VALUE)
        expect(String(resolved)).not.toContain(VALUE)
        const missing = yield* Effect.flip(resolver.resolve("sec_unknown", "oauth.refresh"))
        expect(missing._tag).toBe("NotFound")
        const repo = yield* SecretsRepo
        expect((yield* repo.resolutions(handle.handle_id)).map((r) => [r.purpose, r.outcome])).toEqual([["webhook.signature", "resolved"]])
        expect((yield* repo.resolutions("sec_unknown")).map((r) => r.outcome)).toEqual(["not_found"])
        expect(JSON.stringify(yield* sql`SELECT * FROM secret_resolutions`)).not.toContain(VALUE)
      }).pipe(Effect.provide(secretsLayer(db))))

    it.effect("audits store, resolutions, rotation and revocation in the gateway.secrets chain, never a value", () =>
      Effect.gen(function*() {
        const secrets = yield* Secrets
        const resolver = yield* SecretResolver
        const handle = yield* secrets.store({ scope: "audit", value: value(VALUE) })
        yield* resolver.resolve(handle.handle_id, "webhook.signature")
        yield* Effect.flip(resolver.resolve("sec_unknown", "oauth.refresh"))
        const rotated = yield* secrets.rotate(handle.handle_id, value("rotated-value-XYZ"))
        yield* secrets.revoke(rotated.handle.handle_id)
        const audit = yield* AuditLog
        const chain = yield* audit.events("gateway.secrets")
        expect(chain.map((e) => e.action)).toEqual([
          { type: "secret.stored", handle_id: handle.handle_id, agent_id: "default", provider: "db", scope: "audit", version: 1 },
          { type: "secret.resolved", handle_id: handle.handle_id, purpose: "webhook.signature", outcome: "resolved" },
          { type: "secret.resolved", handle_id: "sec_unknown", purpose: "oauth.refresh", outcome: "not_found" },
          { type: "secret.rotated", handle_id: handle.handle_id, new_handle_id: rotated.handle.handle_id, version: 2, references_repointed: 1 },
          { type: "secret.revoked", handle_id: rotated.handle.handle_id, references_disabled: 1 }
        ])
        expect(audit.verify(chain).valid).toBe(true)
        expect(JSON.stringify(chain)).not.toContain(VALUE)
        expect(JSON.stringify(chain)).not.toContain("rotated-value-XYZ")
      }).pipe(Effect.provide(secretsLayer(db))))

    it.effect("resolveChecked records a resolution (row and secret.resolved) only when the check holds", () =>
      Effect.gen(function*() {
        const secrets = yield* Secrets
        const resolver = yield* SecretResolver
        const repo = yield* SecretsRepo
        const audit = yield* AuditLog
        const handle = yield* secrets.store({ scope: "checked", value: value(VALUE) })
        const resolvedEvents = () =>
          Effect.map(audit.events("gateway.secrets"), (events) => events.filter((e) => (e.action as { type: string }).type === "secret.resolved").length)
        const before = yield* resolvedEvents()
        for (let i = 0; i < 5; i++) {
          const refused = yield* resolver.resolveChecked(handle.handle_id, "webhook:watcher-1", () => Result.fail("signature" as const))
          expect(refused).toEqual(Result.fail("signature"))
        }
        expect(yield* Effect.flip(resolver.resolveChecked("sec_unknown", "webhook:watcher-1", () => Result.succeed(1)))).toMatchObject({ _tag: "NotFound" })
        expect(yield* repo.resolutions(handle.handle_id)).toEqual([])
        expect(yield* repo.resolutions("sec_unknown")).toEqual([])
        expect(yield* resolvedEvents()).toBe(before)
        const accepted = yield* resolver.resolveChecked(handle.handle_id, "webhook:watcher-1", (secret) => Result.succeed(Redacted.value(secret).length))
        expect(accepted).toEqual(Result.succeed(VALUE.length))
        expect((yield* repo.resolutions(handle.handle_id)).map((r) => [r.purpose, r.outcome])).toEqual([["webhook:watcher-1", "resolved"]])
        expect(yield* resolvedEvents()).toBe(before + 1)
      }).pipe(Effect.provide(secretsLayer(db))))

    it.effect("validates input: value required, provider must be the configured one, scope and agent id", () =>
      Effect.gen(function*() {
        const store = yield* SecretStore
        const fail = (input: Parameters<typeof store.store>[0]) => Effect.map(Effect.flip(store.store(input)), (e) => e.message)
        expect(yield* fail({ scope: "x" })).toMatch(/^value: required by the db secret provider/)
        expect(yield* fail({ scope: "x", value: value(VALUE), provider: "env" })).toMatch(/^provider: "env" is not the configured secret provider \(db\)/)
        expect(yield* fail({ scope: "", value: value(VALUE) })).toMatch(/^scope:/)
        expect(yield* fail({ scope: "x", value: value(VALUE), agent_id: "bad agent!" })).toMatch(/^agent_id:/)
        for (const message of [
          yield* fail({ scope: "x", value: value(VALUE), provider: "env" }),
          yield* fail({ scope: "x", value: value(VALUE), agent_id: "bad agent!" })
        ]) expect(message).not.toContain(VALUE)
        expect((yield* store.store({ scope: "x", value: value(VALUE), provider: "db" })).provider).toBe("db")
      }).pipe(Effect.provide(secretsLayer(db))))

    it.effect("lists the active handles of one agent; versions count per (agent, scope)", () =>
      Effect.gen(function*() {
        const secrets = yield* Secrets
        const a = yield* secrets.store({ scope: "api", value: value("one") })
        const b = yield* secrets.store({ scope: "api", value: value("two") })
        const other = yield* secrets.store({ scope: "api", value: value("three"), agent_id: "agent-7" })
        // By created_at, then handle_id (two handles may share a millisecond).
        expect((yield* secrets.list()).map((h) => h.handle_id).sort()).toEqual([a.handle_id, b.handle_id].sort())
        expect((yield* secrets.list("agent-7")).map((h) => h.handle_id)).toEqual([other.handle_id])
        expect(yield* secrets.list("nobody")).toEqual([])
        const repo = yield* SecretsRepo
        const versions = yield* Effect.forEach([a, b, other], (h) => repo.get(h.handle_id))
        expect(versions.map((r) => r?.version)).toEqual([1, 2, 1])
        const rotated = yield* secrets.rotate(b.handle_id, value("four"))
        expect((yield* repo.get(rotated.handle.handle_id))?.version).toBe(3)
        const resolver = yield* SecretResolver
        expect(Redacted.value(yield* resolver.resolve(a.handle_id, "t"))).toBe("one")
        expect(Redacted.value(yield* resolver.resolve(other.handle_id, "t"))).toBe("three")
      }).pipe(Effect.provide(secretsLayer(db))))

    it.effect("revokes: the value is erased, references are told, the handle no longer resolves; unknown → NotFound", () => {
      const references = fakeReferences()
      return Effect.gen(function*() {
        const secrets = yield* Secrets
        const handle = yield* secrets.store({ scope: "api", value: value(VALUE) })
        yield* secrets.revoke(handle.handle_id)
        expect(references.calls).toEqual([["handleRevoked", handle.handle_id]])
        expect(yield* secrets.list()).toEqual([])
        expect((yield* Effect.flip(secrets.get(handle.handle_id)))._tag).toBe("NotFound")
        expect((yield* Effect.flip(secrets.revoke(handle.handle_id)))._tag).toBe("NotFound")
        expect((yield* Effect.flip(secrets.revoke("sec_nope")))._tag).toBe("NotFound")
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT * FROM secret_versions`).toHaveLength(0)
        const resolver = yield* SecretResolver
        expect((yield* Effect.flip(resolver.resolve(handle.handle_id, "t"))).message).toMatch(/revoked/)
        expect((yield* (yield* SecretsRepo).resolutions(handle.handle_id)).map((r) => r.outcome)).toEqual(["revoked"])
      }).pipe(Effect.provide(secretsLayer(db, dbProvider(), references.layer)))
    })

    it.effect("rotates: a new handle with the new value, references repointed, the old one revoked", () => {
      const references = fakeReferences()
      return Effect.gen(function*() {
        const secrets = yield* Secrets
        const old = yield* secrets.store({ scope: "oauth:github:default:access", value: value("old-value"), agent_id: "a1" })
        const result = yield* secrets.rotate(old.handle_id, value("new-value"))
        expect(result.revoked).toBe(true)
        expect(result.handle).toMatchObject({ provider: "db", scope: old.scope })
        expect(result.handle.handle_id).not.toBe(old.handle_id)
        expect(references.calls).toEqual([["repoint", old.handle_id, result.handle.handle_id]])
        expect((yield* secrets.list("a1")).map((h) => h.handle_id)).toEqual([result.handle.handle_id])
        const resolver = yield* SecretResolver
        expect(Redacted.value(yield* resolver.resolve(result.handle.handle_id, "t"))).toBe("new-value")
        expect((yield* Effect.flip(resolver.resolve(old.handle_id, "t")))._tag).toBe("NotFound")
        expect((yield* (yield* SecretsRepo).get(old.handle_id))?.replaced_by).toBe(result.handle.handle_id)
        expect((yield* Effect.flip(secrets.rotate(old.handle_id, value("x"))))._tag).toBe("NotFound")
      }).pipe(Effect.provide(secretsLayer(db, dbProvider(), references.layer)))
    })

    it.effect("rotation whose repointing fails rolls back: the old handle stays active, the new one never existed", () => {
      const references = fakeReferences({ failRepoint: true })
      return Effect.gen(function*() {
        const secrets = yield* Secrets
        const old = yield* secrets.store({ scope: "api", value: value("old-value") })
        const error = yield* Effect.flip(secrets.rotate(old.handle_id, value("new-value")))
        expect(error._tag).toBe("RotationPropagationFailed")
        expect(error.message).toBe("rotation propagation failed; nothing was changed")
        expect(references.calls).toHaveLength(1)
        const attempted = references.calls[0][2]
        expect((yield* secrets.list()).map((h) => h.handle_id)).toEqual([old.handle_id])
        const repo = yield* SecretsRepo
        expect(yield* repo.get(attempted)).toBeUndefined()
        expect((yield* repo.get(old.handle_id))?.revoked_at).toBeNull()
        const sql = yield* SqlClient.SqlClient
        expect(yield* sql`SELECT handle_id FROM secret_versions`).toEqual([{ handle_id: old.handle_id }])
        expect(Redacted.value(yield* (yield* SecretResolver).resolve(old.handle_id, "t"))).toBe("old-value")
      }).pipe(Effect.provide(secretsLayer(db, dbProvider(), references.layer)))
    })

    it.effect("publishes SecretRotated and SecretRevoked to after-commit subscribers, never for a rotation rolled back", () => {
      const references = fakeReferences()
      return Effect.gen(function*() {
        const secrets = yield* Secrets
        const events = yield* DomainEvents
        const heard: Array<unknown> = []
        yield* events.afterCommit(SecretRotated, (rotated) => Effect.sync(() => void heard.push(["rotated", rotated])))
        yield* events.afterCommit(SecretRevoked, (revoked) => Effect.sync(() => void heard.push(["revoked", revoked])))
        const old = yield* secrets.store({ scope: "api", value: value("old-value"), agent_id: "a1" })
        const rotated = yield* secrets.rotate(old.handle_id, value("new-value"))
        yield* secrets.revoke(rotated.handle.handle_id)
        expect(heard).toEqual([
          ["rotated", { handle_id: old.handle_id, new_handle_id: rotated.handle.handle_id, agent_id: "a1", scope: "api", version: 2 }],
          ["revoked", { handle_id: rotated.handle.handle_id }]
        ])
        expect(JSON.stringify(heard)).not.toContain("value")
      }).pipe(Effect.provide(secretsLayer(db, dbProvider(), references.layer)))
    })

    it.effect("a rotation rolled back publishes no SecretRotated", () => {
      const references = fakeReferences({ failRepoint: true })
      return Effect.gen(function*() {
        const secrets = yield* Secrets
        const heard: Array<unknown> = []
        yield* (yield* DomainEvents).afterCommit(SecretRotated, (rotated) => Effect.sync(() => void heard.push(rotated)))
        const old = yield* secrets.store({ scope: "api", value: value("old-value") })
        expect((yield* Effect.flip(secrets.rotate(old.handle_id, value("new-value"))))._tag).toBe("RotationPropagationFailed")
        expect(heard).toEqual([])
      }).pipe(Effect.provide(secretsLayer(db, dbProvider(), references.layer)))
    })

    it.effect("the master key: same key reads every secret again; another key or a missing key file fails the start clearly", () =>
      Effect.gen(function*() {
        const path = keyPath()
        const first = yield* makeDbProvider(path)
        const sql = yield* SqlClient.SqlClient
        const secrets = yield* Secrets.pipe(Effect.provide(Secrets.layerNoDeps.pipe(
          Layer.provide(SecretsRepo.layer),
          Layer.provide(Layer.succeed(SecretProvider, first)),
          Layer.provide(fakeReferences().layer),
          Layer.provide(AuditLog.layer),
          Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))
        )))
        const handle = yield* secrets.store({ scope: "api", value: value(VALUE) })
        const ref = { handle_id: handle.handle_id, agent_id: "default", scope: "api", version: 1 }

        // Restart with the same key file: readable.
        const again = yield* makeDbProvider(path)
        expect(yield* Effect.map(again.resolve(ref), (o) => o._tag === "Some" && Redacted.value(o.value))).toBe(VALUE)

        // Another key: SecretsKeyMismatch naming the file and both key ids.
        const otherPath = keyPath()
        writeFileSync(otherPath, randomBytes(32).toString("hex"), { mode: 0o600 })
        const mismatch = yield* Effect.flip(makeDbProvider(otherPath))
        expect(mismatch._tag).toBe("SecretsKeyMismatch")
        const stored = (yield* sql<{ key_id: string }>`SELECT key_id FROM secret_versions`)[0].key_id
        expect(mismatch.message).toContain(otherPath)
        expect(mismatch.message).toContain(stored)
        expect(mismatch.message).toMatch(/has key id [0-9a-f]{16}/)
        expect(mismatch.message).toMatch(/restore the key file/)

        // No key file while sealed secrets exist: the same error, and no new key is generated.
        const missingPath = keyPath()
        const missing = yield* Effect.flip(makeDbProvider(missingPath))
        expect(missing._tag).toBe("SecretsKeyMismatch")
        expect(missing.message).toContain(missingPath)
        expect(missing.message).toContain(stored)
        expect(existsSync(missingPath)).toBe(false)
      }).pipe(Effect.provide(db.make())))
  })

  describe(`Secrets (env provider) on ${db.name}`, () => {
    const env = { SVC_TEST_TOKEN: "from-the-environment" }
    const layer = () => secretsLayer(db, Layer.succeed(SecretProvider, makeEnvProvider(env)))

    it.effect("a handle names an environment variable, read at resolve time; no value, no rotation", () =>
      Effect.gen(function*() {
        const secrets = yield* Secrets
        const handle = yield* secrets.store({ scope: "SVC_TEST_TOKEN" })
        expect(handle.provider).toBe("env")
        const resolver = yield* SecretResolver
        expect(Redacted.value(yield* resolver.resolve(handle.handle_id, "t"))).toBe("from-the-environment")
        const unset = yield* secrets.store({ scope: "SVC_UNSET_VARIABLE" })
        expect((yield* Effect.flip(resolver.resolve(unset.handle_id, "t"))).message).toMatch(/SVC_UNSET_VARIABLE is not set/)
        const rotate = yield* Effect.flip(secrets.rotate(handle.handle_id, value("x")))
        expect(rotate._tag).toBe("InvalidRequest")
        expect(rotate.message).toMatch(/cannot be rotated/)
        expect((yield* Effect.flip(secrets.store({ scope: "X", value: value("v") }))).message).toMatch(/^value: not accepted/)
        expect((yield* Effect.flip(secrets.store({ scope: "not-a-name" }))).message).toMatch(/^scope: scope must name an environment variable/)
        expect((yield* Effect.flip(secrets.store({ scope: "X", provider: "db" }))).message).toMatch(/not the configured secret provider \(env\)/)
        expect(Exit.isSuccess(yield* Effect.exit(secrets.revoke(handle.handle_id)))).toBe(true)
      }).pipe(Effect.provide(layer())))
  })
}
