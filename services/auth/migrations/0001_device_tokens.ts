/**
 * Auth migration 1: `device_tokens`, the bearer tokens issued to devices.
 *
 * Only the SHA-256 digest (lowercase hex) of a token is stored. `scopes` is a
 * JSON array encoded as text and timestamps are ISO-8601 text on both
 * dialects, so rows read the same from SQLite and PostgreSQL.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

/**
 * Creates `device_tokens` and its `device_id` index. `IF NOT EXISTS`: on a
 * database migrated before migrations moved to the subsystems, the table is
 * already there.
 */
export const deviceTokens: Migration = {
  id: 1,
  name: "device_tokens",
  sqlite: `
CREATE TABLE IF NOT EXISTS device_tokens (
  token_id TEXT NOT NULL PRIMARY KEY,
  token_digest TEXT NOT NULL UNIQUE,
  device_id TEXT NOT NULL,
  role TEXT NOT NULL,
  scopes TEXT NOT NULL,
  issued_at TEXT NOT NULL,
  expires_at TEXT NULL,
  revoked_at TEXT NULL
);
CREATE INDEX IF NOT EXISTS device_tokens_device_id_idx ON device_tokens (device_id);
`,
  postgres: `
CREATE TABLE IF NOT EXISTS device_tokens (
  token_id TEXT NOT NULL PRIMARY KEY,
  token_digest TEXT NOT NULL UNIQUE,
  device_id TEXT NOT NULL,
  role TEXT NOT NULL,
  scopes TEXT NOT NULL,
  issued_at TEXT NOT NULL,
  expires_at TEXT NULL,
  revoked_at TEXT NULL
);
CREATE INDEX IF NOT EXISTS device_tokens_device_id_idx ON device_tokens (device_id);
`
}
