/**
 * Migrations of the `db` secret provider (applied with
 * `migrate("secrets_db", …)` by its layer): `secret_versions`, the encrypted
 * values. One row per handle version: AES-256-GCM ciphertext, IV and tag as
 * base64 text, and the id of the master key that sealed it (checked at
 * start). Plaintext never reaches the database.
 *
 * @since 0.1.0
 */
import type { Migration } from "../storage/migrations.ts"

const table = `
CREATE TABLE secret_versions (
  handle_id TEXT NOT NULL,
  version INTEGER NOT NULL,
  key_id TEXT NOT NULL,
  iv TEXT NOT NULL,
  tag TEXT NOT NULL,
  ciphertext TEXT NOT NULL,
  created_at TEXT NOT NULL,
  PRIMARY KEY (handle_id, version)
);
CREATE INDEX secret_versions_key_idx ON secret_versions (key_id);
`

/** Every migration of the `db` provider. */
export const secretsDbMigrations: ReadonlyArray<Migration> = [
  { id: 1, name: "secret_versions", sqlite: table, postgres: table }
]
