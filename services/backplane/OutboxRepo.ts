/**
 * The PostgreSQL backplane's outbox (`backplane_outbox`) and cursors
 * (`backplane_cursors`; docs/scaling.md "Backplane on PostgreSQL").
 *
 * An append runs on the caller's connection: inside the caller's
 * transaction the row (and its `pg_notify`, which PostgreSQL sends at
 * commit) commits or rolls back with it. Appenders take a transaction-level
 * advisory lock (one per schema) before taking an id, so ids become visible
 * in id order: a reader that saw id N never later finds a committed id below
 * N, and a cursor is enough. The lock is held until the appending
 * transaction ends: publish late in long transactions.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { JsonTextColumn, serialColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"

/** The channel every instance LISTENs on; payloads are `<schema>:outbox:<origin>:<target>` or `<schema>:directory`. */
export const BACKPLANE_CHANNEL = "svc_backplane"

const Id = Schema.Union([Schema.Number, Schema.BigInt, Schema.String])

/** One outbox row. */
export const OutboxRow = Schema.Struct({
  id: serialColumn(Id),
  kind: Schema.String,
  target_instance_id: Schema.NullOr(Schema.String),
  body: JsonTextColumn,
  created_at: TimestampColumn
})
export type OutboxRow = typeof OutboxRow.Type

/** The outbox's operations. */
export interface OutboxRepo {
  /** Appends a row (to every instance when `target` is null) and notifies; the new id. */
  readonly append: (kind: string, target: string | null, body: string, now: string) => Effect.Effect<number>
  /** Rows after `cursor` for `instanceId` (broadcast or targeted to it), in id order, at most `limit`. */
  readonly after: (cursor: number, instanceId: string, limit: number) => Effect.Effect<ReadonlyArray<OutboxRow>>
  /** The highest id so far (0 when empty). */
  readonly lastId: Effect.Effect<number>
  /** An instance's saved cursor, `undefined` when it has none. */
  readonly cursor: (instanceId: string) => Effect.Effect<number | undefined>
  /** Saves an instance's cursor. */
  readonly saveCursor: (instanceId: string, lastId: number, now: string) => Effect.Effect<void>
  /** Deletes the rows targeted at `instanceId` up to `upTo` (read and delivered: they have no other reader). */
  readonly deleteDelivered: (instanceId: string, upTo: number) => Effect.Effect<void>
  /** Deletes rows created before `before` (retention). */
  readonly prune: (before: string) => Effect.Effect<void>
  /** The schema the client works in (notification payloads name it). */
  readonly currentSchema: Effect.Effect<string>
  /** Wakes the other instances (`<schema>:directory`) after a directory change. */
  readonly notifyDirectory: Effect.Effect<void>
}

/**
 * The outbox over `sql` (PostgreSQL). `origin` (the appending instance's id) goes into each append's notification,
 * `<schema>:outbox:<origin>:<target instance id, or * for every instance>`, so that an instance ignores its own rows'
 * notifications (it delivered them itself) and those of rows targeted at another instance.
 */
export const makeOutboxRepo = (sql: SqlClient.SqlClient, origin = "*"): OutboxRepo => {
  const rows = findRows(OutboxRow)
  const ids = findRows(Schema.Struct({ id: Schema.NullOr(Id) }))
  const toNumber = (id: number | bigint | string | null | undefined) => Number(id ?? 0)
  return repositoryEdge("OutboxRepo", {
    append: (kind, target, body, now) =>
      // One statement (a round trip): the lock is taken before the row (and its id) exists, the notification is
      // queued with it; inside a transaction (a savepoint in the caller's) both go out at its commit.
      sql.withTransaction(Effect.map(
        ids(sql`WITH locked AS (SELECT pg_advisory_xact_lock(hashtext(current_schema() || '.backplane_outbox')))
          INSERT INTO backplane_outbox (kind, target_instance_id, body, created_at)
          SELECT ${kind}, ${target}, ${body}, ${now} FROM locked
          RETURNING id, pg_notify(${BACKPLANE_CHANNEL}, current_schema() || ${`:outbox:${origin}:${target ?? "*"}`}) AS notified`),
        ([row]) => toNumber(row?.id)
      )),
    after: (cursor, instanceId, limit) =>
      rows(sql`SELECT id, kind, target_instance_id, body, created_at FROM backplane_outbox
        WHERE id > ${cursor} AND (target_instance_id IS NULL OR target_instance_id = ${instanceId})
        ORDER BY id LIMIT ${limit}`),
    lastId: Effect.map(ids(sql`SELECT MAX(id) AS id FROM backplane_outbox`), ([row]) => toNumber(row?.id)),
    cursor: (instanceId) =>
      Effect.map(
        ids(sql`SELECT last_outbox_id AS id FROM backplane_cursors WHERE instance_id = ${instanceId}`),
        ([row]) => (row === undefined ? undefined : toNumber(row.id))
      ),
    saveCursor: (instanceId, lastId, now) =>
      Effect.asVoid(sql`INSERT INTO backplane_cursors (instance_id, last_outbox_id, updated_at) VALUES (${instanceId}, ${lastId}, ${now})
        ON CONFLICT (instance_id) DO UPDATE SET last_outbox_id = EXCLUDED.last_outbox_id, updated_at = EXCLUDED.updated_at`),
    deleteDelivered: (instanceId, upTo) =>
      Effect.asVoid(sql`DELETE FROM backplane_outbox WHERE target_instance_id = ${instanceId} AND id <= ${upTo}`),
    prune: (before) => Effect.asVoid(sql`DELETE FROM backplane_outbox WHERE created_at < ${before}`),
    currentSchema: Effect.map(findRows(Schema.Struct({ schema: Schema.String }))(sql`SELECT current_schema() AS schema`), ([row]) => row?.schema ?? "public"),
    notifyDirectory: Effect.asVoid(sql`SELECT pg_notify(${BACKPLANE_CHANNEL}, current_schema() || ':directory')`)
  })
}
