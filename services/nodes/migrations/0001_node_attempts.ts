/**
 * Nodes migration 1: `node_attempts`, the tasks executing on nodes as a cluster's instances share them
 * (services/nodes/AttemptsRepo.ts): `attempt.evidence` reaches the instance holding the node's connection, which may
 * not be the one that dispatched the task. Written only with `SVC_CLUSTER=1`; a row lives for its task plus the
 * evidence grace.
 *
 * @module
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const ddl = `
CREATE TABLE IF NOT EXISTS node_attempts (
  attempt_id TEXT NOT NULL PRIMARY KEY,
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  node_id TEXT NOT NULL,
  link TEXT NOT NULL,
  artifacts TEXT NOT NULL,
  started_at TEXT NOT NULL,
  ended_at TEXT
);
`

/** Creates `node_attempts` (the same text on both dialects). */
export const nodeAttempts: Migration = { id: 1, name: "node_attempts", sqlite: ddl, postgres: ddl }
