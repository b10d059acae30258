/**
 * Secret handle persistence (tables `secret_handles`, `secret_resolutions`;
 * services/secrets/migrations). Values are not here: they belong to the
 * provider (the `db` provider's `secret_versions`). Rows are decoded with
 * {@link SecretHandleRow}, the same on SQLite and PostgreSQL.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { migrate } from "../../layers/storage/migrations.ts"
import { secretsMigrations } from "./migrations/index.ts"
import type { SecretHandle } from "./schema.ts"
import { serialColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"

/** A stored handle. */
export const SecretHandleRow = Schema.Struct({
  handle_id: Schema.String,
  agent_id: Schema.String,
  provider: Schema.String,
  scope: Schema.String,
  version: Schema.Int,
  created_at: TimestampColumn,
  revoked_at: Schema.NullOr(TimestampColumn),
  replaced_by: Schema.NullOr(Schema.String)
})
export type SecretHandleRow = typeof SecretHandleRow.Type

/** The wire record of a row (never the value, which is not here anyway). */
export const toSecretHandle = (row: SecretHandleRow): SecretHandle => ({
  handle_id: row.handle_id,
  provider: row.provider,
  scope: row.scope,
  created_at: row.created_at
})

/** Outcome of one resolution, as recorded. */
export const ResolutionOutcome = Schema.Literals(["resolved", "not_found", "revoked", "unavailable", "failed"])
export type ResolutionOutcome = typeof ResolutionOutcome.Type

/** One recorded resolution. */
export interface SecretResolutionRecord {
  readonly handle_id: string
  readonly purpose: string
  readonly outcome: ResolutionOutcome
  readonly resolved_at: string
}

/** A stored resolution (`secret_resolutions`), with its id; the row schema a snapshot import checks its rows with. */
export const SecretResolutionRow = Schema.Struct({
  id: serialColumn(Schema.Int),
  handle_id: Schema.String,
  purpose: Schema.String,
  outcome: ResolutionOutcome,
  resolved_at: TimestampColumn
})

/** Repository of secret handles over `SqlClient`. */
export class SecretsRepo extends Context.Service<SecretsRepo, {
  readonly insert: (row: SecretHandleRow) => Effect.Effect<void>
  /** The handle in any state, or `undefined`. */
  readonly get: (handleId: string) => Effect.Effect<SecretHandleRow | undefined>
  /** The active handles of an agent, by `created_at` then `handle_id`. */
  readonly listActive: (agentId: string) => Effect.Effect<ReadonlyArray<SecretHandleRow>>
  /** 1 + the highest version of (agent, provider, scope), revoked handles included. */
  readonly nextVersion: (agentId: string, provider: string, scope: string) => Effect.Effect<number>
  /** Revokes `handleId` if it is active; true when this call revoked it. */
  readonly revoke: (handleId: string, at: string, replacedBy: string | null) => Effect.Effect<boolean>
  readonly recordResolution: (record: SecretResolutionRecord) => Effect.Effect<void>
  /** The recorded resolutions of a handle, oldest first. */
  readonly resolutions: (handleId: string) => Effect.Effect<ReadonlyArray<SecretResolutionRecord>>
  /** Runs `effect` in one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/secrets/SecretsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the secrets migrations first. */
  static readonly layer = Layer.effect(
    SecretsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("secrets", secretsMigrations)
      const rows = findRows(SecretHandleRow)
      // MAX(version): a number on SQLite, a string (BIGINT) or a number on PostgreSQL; null when there is none.
      const topVersion = findRows(Schema.Struct({ top: Schema.NullOr(Schema.Union([Schema.Number, Schema.String])) }))
      const resolutions = findRows(SecretResolutionRow.mapFields(({ id: _, ...fields }) => fields))

      return SecretsRepo.of(repositoryEdge("SecretsRepo", {
        insert: (row) => Effect.asVoid(sql`INSERT INTO secret_handles ${sql.insert(row)}`),
        get: (handleId) => Effect.map(rows(sql`SELECT * FROM secret_handles WHERE handle_id = ${handleId}`), (r) => r[0]),
        listActive: (agentId) =>
          rows(sql`SELECT * FROM secret_handles WHERE agent_id = ${agentId} AND revoked_at IS NULL ORDER BY created_at, handle_id`),
        nextVersion: (agentId, provider, scope) =>
          Effect.map(
            topVersion(sql`SELECT MAX(version) AS top FROM secret_handles
              WHERE agent_id = ${agentId} AND provider = ${provider} AND scope = ${scope}`),
            (r) => Number(r[0]?.top ?? 0) + 1
          ),
        revoke: (handleId, at, replacedBy) =>
          Effect.map(
            sql`UPDATE secret_handles SET revoked_at = ${at}, replaced_by = ${replacedBy}
              WHERE handle_id = ${handleId} AND revoked_at IS NULL RETURNING handle_id`,
            (r) => r.length > 0
          ),
        recordResolution: (record) => Effect.asVoid(sql`INSERT INTO secret_resolutions ${sql.insert({ ...record })}`),
        resolutions: (handleId) =>
          resolutions(sql`SELECT handle_id, purpose, outcome, resolved_at FROM secret_resolutions
            WHERE handle_id = ${handleId} ORDER BY id`),
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}
