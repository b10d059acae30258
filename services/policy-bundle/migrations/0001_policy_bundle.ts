/**
 * Policy-bundle migration 1: `policy_snapshots` (effective bundles, one row
 * per distinct SHA-256) and `policy_overrides` ("approve always").
 *
 * Timestamps are ISO-8601 UTC text with milliseconds (`toISOString()`), so
 * text order is time order on both dialects; JSON values (`bundle_json`,
 * `created_by`, `revoked_by`) are text.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const ddl = `
CREATE TABLE policy_snapshots (
  policy_snapshot_id TEXT NOT NULL PRIMARY KEY,
  sha256 TEXT NOT NULL UNIQUE,
  bundle_json TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE policy_overrides (
  policy_override_id TEXT NOT NULL PRIMARY KEY,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT NULL,
  agent_id TEXT NOT NULL,
  workspace_id TEXT NULL,
  tool_id TEXT NOT NULL,
  pattern TEXT NOT NULL,
  created_from_approval_id INTEGER NULL,
  created_from_policy_snapshot_id TEXT NULL,
  expires_at TEXT NULL,
  revoked_at TEXT NULL,
  revoked_by TEXT NULL,
  revoked_reason TEXT NULL
);
CREATE INDEX policy_overrides_page_idx ON policy_overrides (created_at, policy_override_id);
CREATE INDEX policy_overrides_match_idx ON policy_overrides (agent_id, tool_id, status);
CREATE INDEX policy_overrides_expiry_idx ON policy_overrides (status, expires_at);
`

/** Creates both tables and the indexes for paging (created_at, id), matching and expiry. */
export const policyBundleTables: Migration = { id: 1, name: "policy_bundle", sqlite: ddl, postgres: ddl }
