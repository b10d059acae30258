/**
 * Watcher persistence (tables `watchers`, `watcher_firings`;
 * services/watchers/migrations). The two dialects differ only at this edge:
 * PostgreSQL returns `BIGINT` columns as `bigint` and `BOOLEAN` as
 * `boolean`, SQLite returns numbers for both; rows are decoded with
 * {@link WatcherRow} and {@link FiringRow} and normalised to the wire
 * records (`id` a number, `active` a boolean, `trigger_config` parsed JSON).
 * A row that does not decode is corrupt storage: a defect.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { migrate } from "../../layers/storage/migrations.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { watchersMigrations } from "./migrations/index.ts"
import { TriggerType, type Watcher, WatcherFiring } from "./schema.ts"
import { serialColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"

/** An integer column: `bigint` from PostgreSQL's BIGINT, a number from SQLite. */
const DbInt = Schema.Union([Schema.Number, Schema.BigInt])
/** A boolean column: `boolean` from PostgreSQL, 1/0 from SQLite. */
const DbBool = Schema.Union([Schema.Boolean, Schema.Number])

/** A stored watcher. */
export const WatcherRow = Schema.Struct({
  id: serialColumn(DbInt),
  plan_id: Schema.String,
  trigger_type: TriggerType,
  trigger_config: Schema.NullOr(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown))),
  active: DbBool,
  deleted_at: Schema.NullOr(TimestampColumn),
  created_at: TimestampColumn,
  updated_at: TimestampColumn
})
export type WatcherRow = typeof WatcherRow.Type

/** A stored firing, with its watcher's `plan_id`: the wire record with the dialects' integer columns. */
export const FiringRow = WatcherFiring.mapFields((fields) => ({
  ...fields,
  watcher_id: DbInt,
  slot: Schema.NullOr(DbInt)
}))

/**
 * A stored firing as the table holds it (no `plan_id`; with `dedupe_key`,
 * `nonce_key` and `updated_at`), fields in the table's column order: the row
 * schema a snapshot import checks `watcher_firings` rows with.
 */
export const WatcherFiringRow = FiringRow.mapFields((firing) => ({
  firing_id: firing.firing_id,
  watcher_id: firing.watcher_id,
  trigger_type: firing.trigger_type,
  dedupe_key: Schema.String,
  slot: firing.slot,
  nonce_digest: firing.nonce_digest,
  nonce_key: Schema.NullOr(Schema.String),
  source_run_id: firing.source_run_id,
  status: firing.status,
  run_id: firing.run_id,
  error: firing.error,
  created_at: TimestampColumn,
  updated_at: TimestampColumn
}))

/** The wire record of a row. */
export const toWatcher = (row: WatcherRow): Watcher => ({
  id: Number(row.id),
  plan_id: row.plan_id,
  trigger_type: row.trigger_type,
  ...(row.trigger_config !== null ? { trigger_config: row.trigger_config } : {}),
  active: row.active === true || row.active === 1,
  created_at: row.created_at,
  updated_at: row.updated_at
})

const toFiring = (row: typeof FiringRow.Type): WatcherFiring => ({
  ...row,
  watcher_id: Number(row.watcher_id),
  slot: row.slot === null ? null : Number(row.slot)
})

/** A watcher to insert (the database assigns `id`). */
export interface NewWatcher {
  readonly plan_id: string
  readonly trigger_type: TriggerType
  readonly trigger_config: Readonly<Record<string, unknown>> | undefined
  readonly created_at: string
}

/** A firing to insert, `pending`. */
export interface NewFiring {
  readonly firing_id: string
  readonly watcher_id: number
  readonly trigger_type: TriggerType
  /** `slot:<slot>`, `nonce:<digest>` or `run:<run_id>`: unique per watcher. */
  readonly dedupe_key: string
  readonly slot: number | null
  readonly nonce_digest: string | null
  /** A webhook nonce's key under its secret (`nonceKey`): unique across watchers, so one secret accepts a nonce once. */
  readonly nonce_key: string | null
  readonly source_run_id: string | null
  readonly created_at: string
}

/** How a firing ended. */
export interface FiringResult {
  readonly status: "enqueued" | "recorded" | "failed"
  readonly run_id: string | null
  readonly error: string | null
}

/** Repository of watchers and their firings over `SqlClient` (SQLite and PostgreSQL alike). */
export class WatchersRepo extends Context.Service<WatchersRepo, {
  /** Stores an active watcher and returns it. */
  readonly insert: (watcher: NewWatcher) => Effect.Effect<Watcher>
  /** The watcher unless it is unknown or deleted (active or not). */
  readonly get: (id: number) => Effect.Effect<Watcher | undefined>
  /** The active watchers, by id; only those of `type` when given. */
  readonly listActive: (type?: TriggerType) => Effect.Effect<ReadonlyArray<Watcher>>
  /** The watchers that are not deleted, active or not, by id. */
  readonly listLive: Effect.Effect<ReadonlyArray<Watcher>>
  /** The active `plan_complete` watchers of `planId`, by id. */
  readonly listPlanComplete: (planId: string) => Effect.Effect<ReadonlyArray<Watcher>>
  /** Sets `active` of a watcher that is not deleted; false when there is none. */
  readonly setActive: (id: number, active: boolean, at: string) => Effect.Effect<boolean>
  /** Deactivates and marks deleted a watcher that is not deleted yet; false when there is none. */
  readonly softDelete: (id: number, at: string) => Effect.Effect<boolean>
  /**
   * Inserts a `pending` firing unless (watcher_id, dedupe_key) exists, or its
   * `nonce_key` does (for any watcher); true when this call inserted it.
   */
  readonly insertFiring: (firing: NewFiring) => Effect.Effect<boolean>
  /** Records how a firing ended. */
  readonly finishFiring: (firingId: string, result: FiringResult, at: string) => Effect.Effect<void>
  /**
   * Points every webhook watcher (not deleted) whose `trigger_config.secret_handle`
   * is `oldHandleId` at `newHandleId` (a rotated secret); returns how many changed.
   */
  readonly repointSecret: (oldHandleId: string, newHandleId: string, at: string) => Effect.Effect<number>
  /** The newest `limit` firings of a watcher, newest first (`GET /watchers/:id/firings`). */
  readonly recentFirings: (watcherId: number, limit: number) => Effect.Effect<ReadonlyArray<WatcherFiring>>
  /** The firings of a watcher, oldest first (diagnostics and tests). */
  readonly firings: (watcherId: number) => Effect.Effect<ReadonlyArray<WatcherFiring>>
}>()("svc-gateway/watchers/WatchersRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the watchers migrations first. */
  static readonly layer = Layer.effect(
    WatchersRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("watchers", watchersMigrations)

      const insert = SqlSchema.findOne({
        Request: Schema.Struct({
          plan_id: Schema.String,
          trigger_type: TriggerType,
          trigger_config: Schema.NullOr(Schema.String),
          active: Schema.Boolean,
          created_at: Schema.String,
          updated_at: Schema.String
        }),
        Result: WatcherRow,
        execute: (row) => sql`INSERT INTO watchers ${sql.insert(row)} RETURNING *`
      })
      const watchers = findRows(WatcherRow)
      const firingRows = findRows(FiringRow)
      const live = sql`deleted_at IS NULL`
      const firingColumns = sql.literal(
        "f.firing_id, f.watcher_id, w.plan_id, f.trigger_type, f.slot, f.nonce_digest, f.source_run_id, f.status, f.run_id, f.error, f.created_at"
      )

      return WatchersRepo.of(repositoryEdge("WatchersRepo", {
        insert: (watcher) =>
          insert({
            plan_id: watcher.plan_id,
            trigger_type: watcher.trigger_type,
            trigger_config: watcher.trigger_config === undefined ? null : JSON.stringify(watcher.trigger_config),
            active: true,
            created_at: watcher.created_at,
            updated_at: watcher.created_at
          }).pipe(
            Effect.map(toWatcher),
            Effect.catchTag("NoSuchElementError", Effect.die)
          ),
        get: (id) => Effect.map(watchers(sql`SELECT * FROM watchers WHERE id = ${id} AND ${live}`), (rows) => rows.map(toWatcher)[0]),
        listActive: (type) =>
          Effect.map(
            watchers(sql`SELECT * FROM watchers WHERE active = ${true} AND ${live}
              ${type === undefined ? sql`` : sql`AND trigger_type = ${type}`} ORDER BY id`),
            (rows) => rows.map(toWatcher)
          ),
        listLive: Effect.map(watchers(sql`SELECT * FROM watchers WHERE ${live} ORDER BY id`), (rows) => rows.map(toWatcher)),
        listPlanComplete: (planId) =>
          Effect.map(
            watchers(sql`SELECT * FROM watchers WHERE plan_id = ${planId} AND trigger_type = 'plan_complete'
              AND active = ${true} AND ${live} ORDER BY id`),
            (rows) => rows.map(toWatcher)
          ),
        setActive: (id, active, at) =>
          Effect.map(
            sql`UPDATE watchers SET active = ${active}, updated_at = ${at} WHERE id = ${id} AND ${live} RETURNING id`,
            (rows) => rows.length > 0
          ),
        softDelete: (id, at) =>
          Effect.map(
            sql`UPDATE watchers SET active = ${false}, deleted_at = ${at}, updated_at = ${at} WHERE id = ${id} AND ${live} RETURNING id`,
            (rows) => rows.length > 0
          ),
        insertFiring: (firing) =>
          Effect.map(
            sql`INSERT INTO watcher_firings ${sql.insert({ ...firing, status: "pending", run_id: null, error: null, updated_at: firing.created_at })}
              ON CONFLICT DO NOTHING RETURNING firing_id`,
            (rows) => rows.length > 0
          ),
        finishFiring: (firingId, result, at) =>
          Effect.asVoid(sql`UPDATE watcher_firings SET status = ${result.status}, run_id = ${result.run_id},
            error = ${result.error}, updated_at = ${at} WHERE firing_id = ${firingId}`),
        repointSecret: (oldHandleId, newHandleId, at) =>
          Effect.gen(function*() {
            const rows = yield* watchers(sql`SELECT * FROM watchers WHERE trigger_type = 'webhook' AND ${live} ORDER BY id`)
            let changed = 0
            for (const watcher of rows.map(toWatcher)) {
              const config = watcher.trigger_config as Record<string, unknown> | undefined
              if (config?.secret_handle !== oldHandleId) continue
              const repointed = JSON.stringify({ ...config, secret_handle: newHandleId })
              yield* sql`UPDATE watchers SET trigger_config = ${repointed}, updated_at = ${at} WHERE id = ${watcher.id}`
              changed++
            }
            return changed
          }),
        recentFirings: (watcherId, limit) =>
          Effect.map(
            firingRows(sql`SELECT ${firingColumns} FROM watcher_firings f JOIN watchers w ON w.id = f.watcher_id
              WHERE f.watcher_id = ${watcherId} ORDER BY f.created_at DESC, f.firing_id DESC LIMIT ${limit}`),
            (rows) => rows.map(toFiring)
          ),
        firings: (watcherId) =>
          Effect.map(
            firingRows(sql`SELECT ${firingColumns} FROM watcher_firings f JOIN watchers w ON w.id = f.watcher_id
              WHERE f.watcher_id = ${watcherId} ORDER BY f.created_at, f.firing_id`),
            (rows) => rows.map(toFiring)
          )
      }))
    })
  )
}
