/**
 * The PostgreSQL backplane's instance and directory rows
 * (`backplane_instances`, `backplane_connections`; docs/scaling.md "Backplane
 * on PostgreSQL"). Times are ISO-8601 text given by the caller (its `Clock`),
 * so that tests drive expiry with `TestClock`. Written outside any caller's
 * transaction: the directory follows sockets, not data.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { JsonTextColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"

/** A live instance of the cluster (`backplane_instances`). */
export const InstanceRow = Schema.Struct({
  instance_id: Schema.String,
  role: Schema.String,
  version: Schema.String,
  started_at: TimestampColumn,
  last_heartbeat_at: TimestampColumn
})
export type InstanceRow = typeof InstanceRow.Type

/** A connection held by some instance (`backplane_connections`). */
export const ConnectionRow = Schema.Struct({
  connection_id: Schema.String,
  instance_id: Schema.String,
  role: Schema.String,
  device_id: Schema.String,
  capabilities: JsonTextColumn,
  ready: JsonTextColumn,
  entry: JsonTextColumn,
  connected_at: TimestampColumn,
  expires_at: TimestampColumn
})
export type ConnectionRow = typeof ConnectionRow.Type

/** The directory's operations. */
export interface DirectoryRepo {
  /** Records this instance (again, after a restart with the same id). */
  readonly upsertInstance: (row: InstanceRow) => Effect.Effect<void>
  /**
   * This instance's heartbeat at `now`: its row, and its connections' `expires_at` moved to `expiresAt`; the ids of
   * the connection rows it refreshed (a row missing from them was swept or never written: the caller writes it again).
   */
  readonly heartbeat: (instanceId: string, now: string, expiresAt: string) => Effect.Effect<ReadonlySet<string>>
  /** Instances whose last heartbeat is at or after `since`, oldest start first. */
  readonly liveInstances: (since: string) => Effect.Effect<ReadonlyArray<InstanceRow>>
  /** Drops expired connections (at `now`) and instances silent since `instanceCutoff` (with their cursors). */
  readonly sweep: (now: string, instanceCutoff: string) => Effect.Effect<void>
  /** Writes (or replaces) a connection row. */
  readonly putConnection: (row: ConnectionRow) => Effect.Effect<void>
  /** Deletes a connection row. */
  readonly deleteConnection: (connectionId: string) => Effect.Effect<void>
  /** Replaces a connection's ready set (JSON array text). */
  readonly setReady: (connectionId: string, ready: string) => Effect.Effect<void>
  /** Other instances' unexpired connections at `now`, in connection order. */
  readonly remoteConnections: (instanceId: string, now: string) => Effect.Effect<ReadonlyArray<ConnectionRow>>
  /** Removes an instance that stops cleanly: its row and its connections. */
  readonly removeInstance: (instanceId: string) => Effect.Effect<void>
}

/** The directory over `sql` (PostgreSQL). */
export const makeDirectoryRepo = (sql: SqlClient.SqlClient): DirectoryRepo => {
  const instances = findRows(InstanceRow)
  const connections = findRows(ConnectionRow)
  const refreshed = findRows(Schema.Struct({ connection_id: Schema.String }))
  return repositoryEdge("DirectoryRepo", {
    upsertInstance: (row) =>
      Effect.asVoid(sql`INSERT INTO backplane_instances ${sql.insert(row)}
        ON CONFLICT (instance_id) DO UPDATE SET role = EXCLUDED.role, version = EXCLUDED.version,
          started_at = EXCLUDED.started_at, last_heartbeat_at = EXCLUDED.last_heartbeat_at`),
    heartbeat: (instanceId, now, expiresAt) =>
      Effect.andThen(
        sql`UPDATE backplane_instances SET last_heartbeat_at = ${now} WHERE instance_id = ${instanceId}`,
        Effect.map(
          refreshed(sql`UPDATE backplane_connections SET expires_at = ${expiresAt} WHERE instance_id = ${instanceId} RETURNING connection_id`),
          (rows) => new Set(rows.map((r) => r.connection_id))
        )
      ),
    liveInstances: (since) =>
      instances(sql`SELECT instance_id, role, version, started_at, last_heartbeat_at FROM backplane_instances
        WHERE last_heartbeat_at >= ${since} ORDER BY started_at, instance_id`),
    sweep: (now, instanceCutoff) =>
      Effect.asVoid(Effect.all([
        sql`DELETE FROM backplane_connections WHERE expires_at < ${now}`,
        sql`DELETE FROM backplane_instances WHERE last_heartbeat_at < ${instanceCutoff}`,
        sql`DELETE FROM backplane_cursors c WHERE NOT EXISTS
          (SELECT 1 FROM backplane_instances i WHERE i.instance_id = c.instance_id) AND c.updated_at < ${instanceCutoff}`
      ])),
    putConnection: (row) =>
      Effect.asVoid(sql`INSERT INTO backplane_connections ${sql.insert(row)}
        ON CONFLICT (connection_id) DO UPDATE SET instance_id = EXCLUDED.instance_id, role = EXCLUDED.role,
          device_id = EXCLUDED.device_id, capabilities = EXCLUDED.capabilities, ready = EXCLUDED.ready,
          entry = EXCLUDED.entry, connected_at = EXCLUDED.connected_at, expires_at = EXCLUDED.expires_at`),
    deleteConnection: (connectionId) => Effect.asVoid(sql`DELETE FROM backplane_connections WHERE connection_id = ${connectionId}`),
    setReady: (connectionId, ready) =>
      Effect.asVoid(sql`UPDATE backplane_connections SET ready = ${ready} WHERE connection_id = ${connectionId}`),
    remoteConnections: (instanceId, now) =>
      connections(sql`SELECT connection_id, instance_id, role, device_id, capabilities, ready, entry, connected_at, expires_at
        FROM backplane_connections WHERE instance_id <> ${instanceId} AND expires_at >= ${now}
        ORDER BY connected_at, connection_id`),
    removeInstance: (instanceId) =>
      Effect.asVoid(Effect.andThen(
        sql`DELETE FROM backplane_connections WHERE instance_id = ${instanceId}`,
        sql`DELETE FROM backplane_instances WHERE instance_id = ${instanceId}`
      ))
  })
}
