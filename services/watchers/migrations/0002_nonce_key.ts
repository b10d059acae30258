/**
 * Watchers migration 2: `watcher_firings.nonce_key`, a webhook nonce's HMAC
 * under the watcher's secret (`nonceKey`, services/watchers/webhook/
 * signature.ts), unique across watchers: a nonce is accepted once per secret,
 * so watchers that share a secret cannot be fired twice by one delivery.
 * Firings written before it keep NULL (NULLs never collide in a unique index,
 * on SQLite and PostgreSQL alike).
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `
ALTER TABLE watcher_firings ADD COLUMN nonce_key TEXT NULL;
CREATE UNIQUE INDEX watcher_firings_nonce_key_idx ON watcher_firings (nonce_key);
`

/** Adds `watcher_firings.nonce_key` and its unique index. */
export const watcherNonceKey: Migration = { id: 2, name: "nonce_key", sqlite: sql, postgres: sql }
