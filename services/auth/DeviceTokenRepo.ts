/**
 * Device token persistence (table `device_tokens`, migration 0001). Stores
 * only the SHA-256 digest of each token, never the token.
 */
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { DeviceRole } from "./principal.ts"

/** A stored device token. Timestamps are ISO-8601 UTC strings; `scopes` is the issued list. */
export interface DeviceTokenRecord {
  readonly tokenId: string
  readonly tokenDigest: string
  readonly deviceId: string
  readonly role: DeviceRole
  readonly scopes: ReadonlyArray<string>
  readonly issuedAt: string
  readonly expiresAt: string | null
  readonly revokedAt: string | null
}

interface Row {
  readonly token_id: string
  readonly token_digest: string
  readonly device_id: string
  readonly role: string
  readonly scopes: string
  readonly issued_at: string
  readonly expires_at: string | null
  readonly revoked_at: string | null
}

const fromRow = (row: Row): DeviceTokenRecord => ({
  tokenId: row.token_id,
  tokenDigest: row.token_digest,
  deviceId: row.device_id,
  role: row.role as DeviceRole,
  scopes: JSON.parse(row.scopes) as Array<string>,
  issuedAt: row.issued_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at
})

/** Repository of device tokens over `SqlClient` (SQLite and PostgreSQL alike). */
export class DeviceTokenRepo extends Context.Service<DeviceTokenRepo, {
  /** Stores a newly issued token. */
  readonly insert: (record: DeviceTokenRecord) => Effect.Effect<void, SqlError>
  /** The token whose digest is `digest`, revoked or not; `undefined` when unknown. */
  readonly findByDigest: (digest: string) => Effect.Effect<DeviceTokenRecord | undefined, SqlError>
  /**
   * Marks the token revoked at `at` if it exists and is not yet revoked;
   * returns its `token_id`, or `undefined` when unknown or already revoked.
   */
  readonly revoke: (digest: string, at: string) => Effect.Effect<string | undefined, SqlError>
}>()("svc-gateway/auth/DeviceTokenRepo") {
  /** The SQL implementation; needs a migrated `SqlClient`. */
  static readonly layer = Layer.effect(
    DeviceTokenRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      return DeviceTokenRepo.of({
        insert: (r) =>
          sql`INSERT INTO device_tokens ${
            sql.insert({
              token_id: r.tokenId,
              token_digest: r.tokenDigest,
              device_id: r.deviceId,
              role: r.role,
              scopes: JSON.stringify(r.scopes),
              issued_at: r.issuedAt,
              expires_at: r.expiresAt,
              revoked_at: r.revokedAt
            })
          }`.pipe(Effect.asVoid),
        findByDigest: (digest) =>
          sql<Row>`SELECT * FROM device_tokens WHERE token_digest = ${digest}`.pipe(
            Effect.map((rows) => (rows.length === 0 ? undefined : fromRow(rows[0])))
          ),
        revoke: (digest, at) =>
          sql<{ readonly token_id: string }>`UPDATE device_tokens SET revoked_at = ${at}
            WHERE token_digest = ${digest} AND revoked_at IS NULL RETURNING token_id`.pipe(
            Effect.map((rows) => rows[0]?.token_id)
          )
      })
    })
  )
}
