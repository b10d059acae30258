/**
 * Moving the planner's records into the audit chain (docs/audit.md
 * "Planner records"). Before the audit subsystem, the planner wrote one
 * record per plan to its own `planner_events` table, unhashed. At start-up
 * (`AuditLog.layer`) every row still there is appended to its plan's chain,
 * in `(step_index, id)` order with its own `occurred_at` and parsed `action`
 * (renumbered from the chain's next index; `replay_id` and `created_at` are
 * dropped: the replay id is the plan's `trace_id`, inside the action), and
 * deleted from `planner_events`, in one transaction. Running it again finds
 * nothing to move, so it is idempotent; two instances starting together
 * serialise on the rows (`FOR UPDATE` on PostgreSQL, the write lock on
 * SQLite). The table itself stays, empty: the planner no longer writes it.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { JsonTextColumn, serialColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { orDieStorage } from "../../layers/storage/repositoryEdge.ts"

const LegacyRow = Schema.Struct({
  // BIGINT identity on PostgreSQL, INTEGER on SQLite: passed back to the DELETE as read.
  id: Schema.Union([Schema.Number, Schema.BigInt, Schema.String]),
  plan_id: Schema.String,
  occurred_at: Schema.String,
  action: Schema.String
})

/**
 * A row of the planner's legacy `planner_events` table, every column; the row
 * schema a snapshot import checks its rows with (the table still travels in
 * snapshots, normally empty).
 */
export const PlannerEventRow = Schema.Struct({
  id: serialColumn(Schema.Union([Schema.Number, Schema.BigInt])),
  replay_id: Schema.String,
  plan_id: Schema.String,
  step_index: Schema.Int,
  occurred_at: TimestampColumn,
  action: JsonTextColumn,
  created_at: TimestampColumn,
  prev_hash: Schema.NullOr(Schema.String),
  event_hash: Schema.NullOr(Schema.String)
})

const parseAction = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text // not JSON: kept as the string it was
  }
}

/** Appends an action to a chain at a given time (inside the caller's transaction). */
export type AppendAt = (chain: string, action: unknown, occurredAt: string) => Effect.Effect<unknown>

/** Moves every `planner_events` row into the audit chain; returns how many moved. */
export const carryOverPlannerEvents = (appendAt: AppendAt): Effect.Effect<number, never, SqlClient.SqlClient> =>
  orDieStorage(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const exists = yield* findRows(Present)(sql.onDialectOrElse({
      pg: () => sql`SELECT to_regclass('planner_events') IS NOT NULL AS present`,
      orElse: () => sql`SELECT 1 AS present FROM sqlite_master WHERE type = 'table' AND name = 'planner_events'`
    }))
    if (exists.length === 0 || !exists[0].present) return 0
    const rows = findRows(LegacyRow)
    return yield* sql.withTransaction(Effect.gen(function*() {
      const legacy = yield* rows(sql.onDialectOrElse({
        pg: () => sql`SELECT id, plan_id, occurred_at, action FROM planner_events ORDER BY plan_id, step_index, id FOR UPDATE`,
        orElse: () => sql`SELECT id, plan_id, occurred_at, action FROM planner_events ORDER BY plan_id, step_index, id`
      }))
      for (const row of legacy) yield* appendAt(row.plan_id, parseAction(row.action), row.occurred_at)
      for (let i = 0; i < legacy.length; i += 500) {
        yield* sql`DELETE FROM planner_events WHERE ${sql.in("id", legacy.slice(i, i + 500).map((row) => row.id))}`
      }
      return legacy.length
    }))
  }))

/** Whether the legacy table exists: a boolean on PostgreSQL, 1 on SQLite. */
const Present = Schema.Struct({ present: Schema.Union([Schema.Boolean, Schema.Number]) })
