/**
 * The tasks executing on nodes as a cluster shares them (`node_attempts`; docs/scaling.md "Nodes across
 * instances"): the dispatching instance records each task's attempt while it runs (and ends it), so that the instance
 * holding the node's connection, where the node's `attempt.evidence` arrives, can check it and record the artifacts
 * it attached; the dispatching instance reads them back with the node's answer. Times are ISO-8601 text from the
 * caller's `Clock`. Used only with `SVC_CLUSTER=1` (one instance keeps its attempts in memory).
 *
 * @module
 */
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { JsonTextColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"

/** One attempt (`node_attempts`); `link` and `artifacts` are JSON text. */
export const NodeAttemptRow = Schema.Struct({
  attempt_id: Schema.String,
  run_id: Schema.String,
  step_id: Schema.String,
  node_id: Schema.String,
  link: JsonTextColumn,
  artifacts: JsonTextColumn,
  started_at: Schema.String,
  ended_at: Schema.NullOr(Schema.String)
})
export type NodeAttemptRow = typeof NodeAttemptRow.Type

/** The shared attempts' operations. */
export interface AttemptsRepo {
  /** Records an attempt as it starts (replacing a row of the same id left by an earlier try). */
  readonly start: (row: NodeAttemptRow) => Effect.Effect<void>
  /** Ends an attempt at `endedAt`; answers the artifacts recorded for it (JSON text), `"[]"` when none. */
  readonly end: (attemptId: string, endedAt: string) => Effect.Effect<string>
  /** The attempt, or `undefined`. */
  readonly find: (attemptId: string) => Effect.Effect<NodeAttemptRow | undefined>
  /** Replaces the artifacts recorded for an attempt (JSON text). */
  readonly setArtifacts: (attemptId: string, artifacts: string) => Effect.Effect<void>
  /** Deletes the attempts that ended before `before`. */
  readonly prune: (before: string) => Effect.Effect<void>
}

/** The shared attempts over `sql` (SQLite or PostgreSQL). */
export const makeAttemptsRepo = (sql: SqlClient.SqlClient): AttemptsRepo => {
  const rows = findRows(NodeAttemptRow)
  const artifacts = findRows(Schema.Struct({ artifacts: JsonTextColumn }))
  return repositoryEdge("AttemptsRepo", {
    start: (row) =>
      Effect.asVoid(Effect.andThen(
        sql`DELETE FROM node_attempts WHERE attempt_id = ${row.attempt_id}`,
        sql`INSERT INTO node_attempts ${sql.insert(row)}`
      )),
    end: (attemptId, endedAt) =>
      Effect.map(
        artifacts(sql`UPDATE node_attempts SET ended_at = ${endedAt} WHERE attempt_id = ${attemptId} RETURNING artifacts`),
        ([row]) => row?.artifacts ?? "[]"
      ),
    find: (attemptId) =>
      Effect.map(
        rows(sql`SELECT attempt_id, run_id, step_id, node_id, link, artifacts, started_at, ended_at FROM node_attempts
          WHERE attempt_id = ${attemptId}`),
        ([row]) => row
      ),
    setArtifacts: (attemptId, value) => Effect.asVoid(sql`UPDATE node_attempts SET artifacts = ${value} WHERE attempt_id = ${attemptId}`),
    prune: (before) => Effect.asVoid(sql`DELETE FROM node_attempts WHERE ended_at IS NOT NULL AND ended_at < ${before}`)
  })
}
