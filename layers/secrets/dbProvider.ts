/**
 * The `db` secret provider (the default; docs/secrets.md): values are sealed
 * with AES-256-GCM under a 32-byte master key and stored in the gateway's
 * database (`secret_versions`, through the same `SqlClient` as the handles,
 * so a value commits or rolls back with its handle).
 *
 * The master key is `SVC_SECRETS_MASTER_KEY_PATH`, else
 * `$SVC_HOME/secrets.master.key`, generated on first start (mode 0600).
 * Every stored value records its key id (first 16 hex of the key's
 * SHA-256); at start the layer fails with {@link SecretsKeyMismatch} when a
 * stored value was sealed under another key, or when the key file is
 * missing or empty while sealed values exist (it never generates a new key then), so
 * a wrong key is a clear start-up error, never garbage.
 *
 * @module
 */
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { join } from "node:path"
import { GatewayConfig } from "../config.ts"
import { migrate } from "../storage/migrations.ts"
import { keyId, open, seal } from "./crypto.ts"
import { generateKeyFile, readKeyFile } from "./masterKey.ts"
import { secretsDbMigrations } from "./migrations.ts"
import { type SecretRef, SecretProvider, SecretProviderError, SecretsKeyMismatch } from "./SecretProvider.ts"
import { TimestampColumn } from "../storage/columns.ts"

/** The master key file the settings name: `secretsMasterKeyPath`, else `$home/secrets.master.key`. */
export const masterKeyPath = (settings: { readonly home: string; readonly secretsMasterKeyPath: string | undefined }): string =>
  settings.secretsMasterKeyPath ?? join(settings.home, "secrets.master.key")

/**
 * A stored sealed value (`secret_versions`): AES-256-GCM `iv`, `tag` and
 * `ciphertext` as base64 text, the sealing key's id; the row schema a
 * snapshot import checks its rows with.
 */
export const SecretVersionRow = Schema.Struct({
  handle_id: Schema.String,
  version: Schema.Int,
  key_id: Schema.String,
  iv: Schema.String,
  tag: Schema.String,
  ciphertext: Schema.String,
  created_at: TimestampColumn
})

const aad = (ref: SecretRef) => `svc-secret:${ref.handle_id}:${ref.version}`

const recovery = "restore the key file this database was used with (from your backup), or point SVC_SECRETS_MASTER_KEY_PATH at it"

/**
 * The `db` provider with the master key at `path`: checks (or generates) the
 * key, then serves values from `secret_versions`. Needs a `SqlClient`.
 */
export const makeDbProvider = (path: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* migrate("secrets_db", secretsDbMigrations)
    const stored = (yield* sql<{ key_id: string }>`SELECT DISTINCT key_id FROM secret_versions ORDER BY key_id`).map((r) => r.key_id)
    const read = yield* readKeyFile(path)
    if ((read === "missing" || read === "empty") && stored.length > 0) {
      return yield* new SecretsKeyMismatch({
        message: `secrets master key ${path} is ${read}, but the database holds secrets sealed under key id ${stored.join(", ")}; ` +
          `refusing to generate a new key (the stored secrets would become unreadable): ${recovery}`,
        path,
        stored_key_ids: stored
      })
    }
    const key = read === "missing" || read === "empty" ? yield* generateKeyFile(path) : read
    const current = keyId(key)
    const others = stored.filter((id) => id !== current)
    if (others.length > 0) {
      return yield* new SecretsKeyMismatch({
        message: `secrets master key ${path} has key id ${current}, but the database holds secrets sealed under key id ` +
          `${others.join(", ")}: ${recovery}`,
        path,
        stored_key_ids: stored,
        key_id: current
      })
    }

    // A storage failure becomes a provider error with a fixed message (never the statement or its parameters).
    const fail = (message: string) => () => Effect.fail(new SecretProviderError({ message }))

    return SecretProvider.of({
      kind: "db",
      rotatable: true,
      value: "required",
      checkScope: () => undefined,
      put: Effect.fn("SecretProvider.put")((ref, value) =>
        Effect.gen(function*() {
          if (value === undefined) return yield* new SecretProviderError({ message: "the db provider needs a value" })
          const sealed = seal(key, Redacted.value(value), aad(ref))
          yield* sql`INSERT INTO secret_versions ${
            sql.insert({ handle_id: ref.handle_id, version: ref.version, ...sealed, created_at: new Date().toISOString() })
          }`
        }).pipe(Effect.catchTag("SqlError", fail(`cannot store secret ${ref.handle_id}`)))),
      resolve: Effect.fn("SecretProvider.resolve")((ref) =>
        Effect.gen(function*() {
          const rows = yield* sql<{ key_id: string; iv: string; tag: string; ciphertext: string }>`
            SELECT key_id, iv, tag, ciphertext FROM secret_versions WHERE handle_id = ${ref.handle_id} AND version = ${ref.version}`
          const row = rows[0]
          if (row === undefined) return Option.none()
          const plaintext = row.key_id === current ? open(key, row, aad(ref)) : undefined
          if (plaintext === undefined) {
            return yield* new SecretProviderError({
              message: `secret ${ref.handle_id} version ${ref.version} cannot be decrypted (key id ${row.key_id}, current ${current}): wrong master key or a corrupted row`
            })
          }
          return Option.some(Redacted.make(plaintext))
        }).pipe(Effect.catchTag("SqlError", fail(`cannot read secret ${ref.handle_id}`)))),
      remove: Effect.fn("SecretProvider.remove")((ref) =>
        Effect.asVoid(sql`DELETE FROM secret_versions WHERE handle_id = ${ref.handle_id} AND version = ${ref.version}`).pipe(
          Effect.catchTag("SqlError", fail(`cannot erase secret ${ref.handle_id}`))
        ))
    })
  })

/** The `db` provider, its key file from `GatewayConfig`. Needs a `SqlClient`; fails at start with `SecretsKeyMismatch` / `SecretsKeyUnreadable`. */
export const DbSecretProvider = Layer.effect(
  SecretProvider,
  Effect.flatMap(GatewayConfig, (settings) => makeDbProvider(masterKeyPath(settings)))
)
