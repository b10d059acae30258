/**
 * Backplane migration 1 (PostgreSQL only; docs/scaling.md "Backplane on
 * PostgreSQL"): the instances of the cluster and their heartbeats
 * (`backplane_instances`), the connection directory
 * (`backplane_connections`), the event outbox (`backplane_outbox`, ids in
 * commit order: writers take a transaction advisory lock) and each
 * instance's cursor in it (`backplane_cursors`). Times are ISO-8601 UTC text.
 * On SQLite (one instance, `Backplane.layerLocal`) it creates nothing.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const postgres = `
CREATE TABLE backplane_instances (
  instance_id TEXT PRIMARY KEY,
  role TEXT NOT NULL,
  version TEXT NOT NULL,
  started_at TEXT NOT NULL,
  last_heartbeat_at TEXT NOT NULL
);
CREATE TABLE backplane_connections (
  connection_id TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL,
  role TEXT NOT NULL,
  device_id TEXT NOT NULL,
  capabilities TEXT NOT NULL,
  ready TEXT NOT NULL,
  entry TEXT NOT NULL,
  connected_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
);
CREATE INDEX backplane_connections_instance_idx ON backplane_connections (instance_id);
CREATE INDEX backplane_connections_expires_idx ON backplane_connections (expires_at);
CREATE TABLE backplane_outbox (
  id BIGSERIAL PRIMARY KEY,
  kind TEXT NOT NULL,
  target_instance_id TEXT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX backplane_outbox_created_idx ON backplane_outbox (created_at);
CREATE TABLE backplane_cursors (
  instance_id TEXT PRIMARY KEY,
  last_outbox_id BIGINT NOT NULL,
  updated_at TEXT NOT NULL
);
`

/** The backplane's tables on PostgreSQL; nothing on SQLite. */
export const backplaneTables: Migration = {
  id: 1,
  name: "backplane",
  sqlite: "SELECT 1",
  postgres
}
