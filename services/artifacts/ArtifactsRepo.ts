/**
 * Artifact metadata persistence (table `artifacts`;
 * services/artifacts/migrations). The dialects differ only at this edge:
 * PostgreSQL returns `BIGINT` as `bigint`, SQLite a number;
 * rows are decoded with {@link ArtifactRow} and normalised to
 * {@link StoredArtifact}. A row that does not decode is corrupt storage: a
 * defect.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { artifactsMigrations } from "./migrations/index.ts"
import { ArtifactKind, ArtifactSensitivity, artifactUri, type StoredArtifact } from "./schema.ts"

/** An integer column: `bigint` from PostgreSQL's BIGINT, a number from SQLite. */
const DbInt = Schema.Union([Schema.Number, Schema.BigInt])

/** A stored artifact row, in the table's column order (the snapshot's row schema). */
export const ArtifactRow = Schema.Struct({
  artifact_id: Schema.String,
  kind: ArtifactKind,
  created_at: TimestampColumn,
  mime_type: Schema.NullOr(Schema.String),
  size_bytes: DbInt,
  sha256: Schema.String,
  labels: Schema.fromJsonString(Schema.Array(Schema.String)),
  metadata: Schema.NullOr(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown))),
  sensitivity: ArtifactSensitivity,
  workspace_id: Schema.String,
  agent_id: Schema.String,
  run_id: Schema.NullOr(Schema.String),
  step_id: Schema.NullOr(Schema.String),
  attempt_id: Schema.NullOr(Schema.String),
  policy_snapshot_id: Schema.NullOr(Schema.String),
  deleted_at: Schema.NullOr(TimestampColumn)
})
export type ArtifactRow = typeof ArtifactRow.Type

/** The record of a row. */
export const toStoredArtifact = (row: ArtifactRow): StoredArtifact => ({
  ref: {
    artifact_id: row.artifact_id,
    uri: artifactUri(row.artifact_id),
    kind: row.kind,
    created_at: row.created_at,
    ...(row.mime_type !== null ? { mime_type: row.mime_type } : {}),
    size_bytes: Number(row.size_bytes),
    sha256: row.sha256,
    labels: row.labels,
    ...(row.metadata !== null ? { metadata: row.metadata } : {})
  },
  link: row.run_id !== null && row.step_id !== null && row.attempt_id !== null
    ? {
      run_id: row.run_id,
      step_id: row.step_id,
      attempt_id: row.attempt_id,
      policy_snapshot_id: row.policy_snapshot_id ?? undefined,
      agent_id: row.agent_id,
      workspace_id: row.workspace_id
    }
    : undefined,
  sensitivity: row.sensitivity,
  deleted_at: row.deleted_at ?? undefined
})

/** A row to insert (every column but `deleted_at`; labels and metadata as JSON text). */
export interface NewArtifactRow {
  readonly artifact_id: string
  readonly kind: ArtifactKind
  readonly created_at: string
  readonly mime_type: string | null
  readonly size_bytes: number
  readonly sha256: string
  readonly labels: string
  readonly metadata: string | null
  readonly sensitivity: ArtifactSensitivity
  readonly workspace_id: string
  readonly agent_id: string
  readonly run_id: string | null
  readonly step_id: string | null
  readonly attempt_id: string | null
  readonly policy_snapshot_id: string | null
}

/** Artifacts counted together by a quota: every one, or those carrying `label` and/or of `sensitivity`. */
export interface ArtifactPool {
  readonly label?: string | undefined
  readonly sensitivity?: ArtifactSensitivity | undefined
}

const Total = Schema.Struct({ total: Schema.NullOr(Schema.Union([Schema.Number, Schema.BigInt, Schema.String])) })

/** Repository of artifact metadata over `SqlClient` (SQLite and PostgreSQL alike). */
export class ArtifactsRepo extends Context.Service<ArtifactsRepo, {
  /** Stores a row. */
  readonly insert: (row: NewArtifactRow) => Effect.Effect<void>
  /** The artifact `artifact_id` (its bytes deleted or not), or `undefined`. */
  readonly get: (artifact_id: string) => Effect.Effect<StoredArtifact | undefined>
  /** The artifacts of an attempt, oldest first. */
  readonly listForAttempt: (attempt_id: string) => Effect.Effect<ReadonlyArray<StoredArtifact>>
  /** The artifacts of a run, oldest first (bytes deleted or not). */
  readonly listForRun: (run_id: string) => Effect.Effect<ReadonlyArray<StoredArtifact>>
  /**
   * The live artifacts (bytes not deleted) created before `before`, oldest
   * first, at most `limit`, after the position `after` (keyset: created_at,
   * artifact_id) when given: a sweep pages through them whether or not it
   * deletes each.
   */
  readonly livePage: (
    before: string,
    limit: number,
    after?: { readonly created_at: string; readonly artifact_id: string } | undefined
  ) => Effect.Effect<ReadonlyArray<StoredArtifact>>
  /**
   * Total `size_bytes` of the live artifacts (bytes not deleted) in a pool:
   * all of them, or those carrying `label` and/or of `sensitivity`.
   */
  readonly liveBytes: (pool: ArtifactPool) => Effect.Effect<number>
  /** Sets `deleted_at` of an artifact whose bytes are not deleted yet; false when there was none. */
  readonly markDeleted: (artifact_id: string, at: string) => Effect.Effect<boolean>
}>()("svc-gateway/artifacts/ArtifactsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the artifacts migrations first. */
  static readonly layer = Layer.effect(
    ArtifactsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("artifacts", artifactsMigrations)
      const rows = findRows(ArtifactRow)
      const totals = findRows(Total)
      const stored = <E, R>(statement: Effect.Effect<ReadonlyArray<unknown>, E, R>) =>
        Effect.map(rows(statement), (found) => found.map(toStoredArtifact))

      return ArtifactsRepo.of(repositoryEdge("ArtifactsRepo", {
        insert: (row) => Effect.asVoid(sql`INSERT INTO artifacts ${sql.insert({ ...row, deleted_at: null })}`),
        get: (artifact_id) => Effect.map(stored(sql`SELECT * FROM artifacts WHERE artifact_id = ${artifact_id}`), (found) => found[0]),
        listForAttempt: (attempt_id) =>
          stored(sql`SELECT * FROM artifacts WHERE attempt_id = ${attempt_id} ORDER BY created_at, artifact_id`),
        listForRun: (run_id) => stored(sql`SELECT * FROM artifacts WHERE run_id = ${run_id} ORDER BY created_at, artifact_id`),
        livePage: (before, limit, after) =>
          stored(sql`SELECT * FROM artifacts WHERE deleted_at IS NULL AND created_at < ${before}
            ${after === undefined ? sql`` : sql`AND (created_at > ${after.created_at} OR (created_at = ${after.created_at} AND artifact_id > ${after.artifact_id}))`}
            ORDER BY created_at, artifact_id LIMIT ${limit}`),
        liveBytes: (pool) => {
          // `labels` is a JSON array (text): the label test is the dialect's JSON containment.
          const label = pool.label === undefined ? sql`` : sql.onDialectOrElse({
            pg: () => sql`AND labels::jsonb @> jsonb_build_array(${pool.label}::text)`,
            orElse: () => sql`AND EXISTS (SELECT 1 FROM json_each(artifacts.labels) WHERE json_each.value = ${pool.label})`
          })
          const sensitivity = pool.sensitivity === undefined ? sql`` : sql`AND sensitivity = ${pool.sensitivity}`
          return Effect.map(
            totals(sql`SELECT SUM(size_bytes) AS total FROM artifacts WHERE deleted_at IS NULL ${label} ${sensitivity}`),
            (found) => Number(found[0]?.total ?? 0)
          )
        },
        markDeleted: (artifact_id, at) =>
          Effect.map(
            sql`UPDATE artifacts SET deleted_at = ${at} WHERE artifact_id = ${artifact_id} AND deleted_at IS NULL RETURNING artifact_id`,
            (changed) => changed.length > 0
          )
      }))
    })
  )
}
