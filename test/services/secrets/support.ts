/** Test wiring of the secrets subsystem: any test database, a provider, and fake `SecretReferences`. */
import { Effect, Layer } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { makeDbProvider } from "../../../layers/secrets/dbProvider.ts"
import { SecretProvider } from "../../../layers/secrets/SecretProvider.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { SecretReferences, SecretResolver, Secrets, SecretStore } from "../../../services/secrets/SecretStore.ts"
import { SecretsRepo } from "../../../services/secrets/SecretsRepo.ts"
import type { TestDatabase } from "../../support/databases.ts"

/** A fresh key file path (not yet created). */
export const keyPath = () => join(mkdtempSync(join(tmpdir(), "svc-secrets-")), "secrets.master.key")

/** The `db` provider with its key at `path`. */
export const dbProvider = (path = keyPath()) => Layer.effect(SecretProvider, makeDbProvider(path))

/** Fake references: records every call; `failRepoint` makes `repoint` die (as a broken auth-profiles store would). */
export const fakeReferences = (options: { readonly failRepoint?: boolean } = {}) => {
  const calls: Array<readonly [string, ...Array<string>]> = []
  const layer = Layer.succeed(SecretReferences, SecretReferences.of({
    repoint: (from, to) =>
      Effect.suspend(() => {
        calls.push(["repoint", from, to])
        return options.failRepoint ? Effect.die(new Error("auth profiles store unavailable")) : Effect.succeed(1)
      }),
    handleRevoked: (id) => Effect.sync(() => (calls.push(["handleRevoked", id]), 1))
  }))
  return { calls, layer }
}

/** Secrets, SecretStore, SecretResolver, SecretsRepo and the audit chain over `provider` and `db`. */
export const secretsLayer = (
  db: TestDatabase,
  provider: Layer.Layer<SecretProvider, unknown, any> = dbProvider(),
  references = fakeReferences().layer
) =>
  Layer.mergeAll(SecretStore.layerNoDeps, SecretResolver.layerNoDeps).pipe(
    Layer.provideMerge(Secrets.layerNoDeps),
    Layer.provideMerge(SecretsRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(provider),
    Layer.provide(references),
    Layer.provideMerge(db.make())
  )
