/**
 * Device token persistence (table `device_tokens`, services/auth/migrations).
 * Stores only the SHA-256 digest of each token, never the token. Rows are
 * encoded and decoded with the {@link DeviceTokenRow} schema (`SqlSchema`),
 * the same on SQLite and PostgreSQL.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { migrate } from "../../layers/storage/migrations.ts"
import { authMigrations } from "./migrations/index.ts"
import { DeviceRole } from "./schema.ts"
import { orDieOnSchema } from "../../layers/storage/rows.ts"

/**
 * A stored device token. Timestamps are ISO-8601 UTC strings; `scopes` is the
 * issued list (stored as a JSON array in text).
 */
export const DeviceTokenRow = Schema.Struct({
  token_id: Schema.String,
  token_digest: Schema.String,
  device_id: Schema.String,
  role: DeviceRole,
  scopes: Schema.fromJsonString(Schema.Array(Schema.String)),
  issued_at: Schema.String,
  expires_at: Schema.NullOr(Schema.String),
  revoked_at: Schema.NullOr(Schema.String)
})
export type DeviceTokenRecord = typeof DeviceTokenRow.Type

/** Repository of device tokens over `SqlClient` (SQLite and PostgreSQL alike). */
export class DeviceTokenRepo extends Context.Service<DeviceTokenRepo, {
  /** Stores a newly issued token. */
  readonly insert: (record: DeviceTokenRecord) => Effect.Effect<void, SqlError>
  /** The token whose digest is `digest`, revoked or not; `undefined` when unknown. */
  readonly findByDigest: (digest: string) => Effect.Effect<DeviceTokenRecord | undefined, SqlError>
  /**
   * Marks the token revoked at `at` if it exists and is not yet revoked (one
   * conditional write); returns its `token_id`, or `undefined` when unknown or
   * already revoked.
   */
  readonly revoke: (digest: string, at: string) => Effect.Effect<string | undefined, SqlError>
}>()("svc-gateway/auth/DeviceTokenRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the auth migrations first. */
  static readonly layer = Layer.effect(
    DeviceTokenRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("auth", authMigrations)

      const insert = SqlSchema.void({
        Request: DeviceTokenRow,
        execute: (row) => sql`INSERT INTO device_tokens ${sql.insert(row)}`
      })
      const findByDigest = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: DeviceTokenRow,
        execute: (digest) => sql`SELECT * FROM device_tokens WHERE token_digest = ${digest}`
      })
      const revoke = SqlSchema.findOneOption({
        Request: Schema.Struct({ digest: Schema.String, at: Schema.String }),
        Result: Schema.Struct({ token_id: Schema.String }),
        execute: ({ at, digest }) =>
          sql`UPDATE device_tokens SET revoked_at = ${at} WHERE token_digest = ${digest} AND revoked_at IS NULL RETURNING token_id`
      })

      // A row that does not decode is corrupt storage, not a client's mistake: a defect.

      return DeviceTokenRepo.of({
        insert: (record) => orDieOnSchema(insert(record)),
        findByDigest: (digest) => orDieOnSchema(Effect.map(findByDigest(digest), (o) => o._tag === "Some" ? o.value : undefined)),
        revoke: (digest, at) =>
          orDieOnSchema(Effect.map(revoke({ digest, at }), (o) => o._tag === "Some" ? o.value.token_id : undefined))
      })
    })
  )
}
