/**
 * Device token persistence (table `device_tokens`, services/auth/migrations).
 * Stores only the SHA-256 digest of each token, never the token. Rows are
 * encoded and decoded with the {@link DeviceTokenRow} schema (`SqlSchema`),
 * the same on SQLite and PostgreSQL. A stored row the schema refuses (a role
 * or scope this gateway does not know, e.g. `*` from an older version) is
 * reported as unreadable by {@link DeviceTokenRepo.findByDigest}, so the
 * credential can be refused instead of failing every request.
 */
import { Context, Effect, Layer, Result, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { migrate } from "../../layers/storage/migrations.ts"
import { authMigrations } from "./migrations/index.ts"
import { DeviceRole, Scope } from "./schema.ts"
import { makeDecoder } from "../shared/decode.ts"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"

/**
 * A stored device token. Timestamps are ISO-8601 UTC strings; `scopes` is the
 * issued list of spec scopes (stored as a JSON array in text). Also the row
 * schema a snapshot import checks `device_tokens` rows with.
 */
export const DeviceTokenRow = Schema.Struct({
  token_id: Schema.String,
  token_digest: Schema.String,
  device_id: Schema.String,
  role: DeviceRole,
  scopes: Schema.fromJsonString(Schema.Array(Scope)),
  issued_at: TimestampColumn,
  expires_at: Schema.NullOr(TimestampColumn),
  revoked_at: Schema.NullOr(TimestampColumn)
})
export type DeviceTokenRecord = typeof DeviceTokenRow.Type

/**
 * What a digest finds: `undefined` (no such token), `{found}` or
 * `{unreadable}` (a row {@link DeviceTokenRow} refuses; `problem` names the
 * field, never a value of the digest).
 */
export type DeviceTokenLookup =
  | undefined
  | { readonly found: DeviceTokenRecord }
  | { readonly unreadable: { readonly token_id: string; readonly problem: string } }

const decodeStored = makeDecoder(DeviceTokenRow, { label: "row", echoInput: false })

/** Repository of device tokens over `SqlClient` (SQLite and PostgreSQL alike). */
export class DeviceTokenRepo extends Context.Service<DeviceTokenRepo, {
  /** Stores a newly issued token. */
  readonly insert: (record: DeviceTokenRecord) => Effect.Effect<void>
  /** The token whose digest is `digest`, revoked or not (see {@link DeviceTokenLookup}). */
  readonly findByDigest: (digest: string) => Effect.Effect<DeviceTokenLookup>
  /**
   * Marks the token revoked at `at` if it exists and is not yet revoked (one
   * conditional write); returns its `token_id`, or `undefined` when unknown or
   * already revoked.
   */
  readonly revoke: (digest: string, at: string) => Effect.Effect<string | undefined>
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
      const findByDigest = (digest: string) =>
        Effect.map(sql`SELECT * FROM device_tokens WHERE token_digest = ${digest}`, (rows): DeviceTokenLookup => {
          if (rows.length === 0) return undefined
          const decoded = decodeStored(rows[0])
          return Result.isSuccess(decoded)
            ? { found: decoded.success }
            : { unreadable: { token_id: String(rows[0]!.token_id), problem: decoded.failure } }
        })
      const revoke = SqlSchema.findOneOption({
        Request: Schema.Struct({ digest: Schema.String, at: Schema.String }),
        Result: Schema.Struct({ token_id: Schema.String }),
        execute: ({ at, digest }) =>
          sql`UPDATE device_tokens SET revoked_at = ${at} WHERE token_digest = ${digest} AND revoked_at IS NULL RETURNING token_id`
      })

      return DeviceTokenRepo.of(repositoryEdge("DeviceTokenRepo", {
        insert: (record) => insert(record),
        findByDigest,
        revoke: (digest, at) =>
          Effect.map(revoke({ digest, at }), (o) => o._tag === "Some" ? o.value.token_id : undefined)
      }))
    })
  )
}
