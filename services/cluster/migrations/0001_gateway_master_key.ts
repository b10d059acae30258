/**
 * Cluster migration 1: `gateway_master_key`, the id of the secrets master
 * key every instance of the cluster must use (a digest of the key, never
 * the key; layers/secrets/crypto.ts `keyId`). One row, written by the first
 * instance that starts with `SVC_CLUSTER=1`.
 *
 * @module
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const ddl = `
CREATE TABLE IF NOT EXISTS gateway_master_key (
  id TEXT NOT NULL PRIMARY KEY,
  key_id TEXT NOT NULL,
  recorded_at TEXT NOT NULL
);
`

/** Creates `gateway_master_key` (the same text on both dialects). */
export const gatewayMasterKey: Migration = { id: 1, name: "gateway_master_key", sqlite: ddl, postgres: ddl }
