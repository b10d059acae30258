/**
 * The shared rate-limit store's table (layers/ratelimit/SqlStore.ts):
 * `rate_limit_windows`, one fixed window per key (a client address under a
 * prefix): the tokens taken and when the window drains, in epoch
 * milliseconds. Owner `ratelimit`, migrated by the store's layer.
 *
 * @module
 */
import type { Migration } from "../storage/migrations.ts"

/** Creates `rate_limit_windows` and the index the pruning of drained windows uses. */
export const rateLimitWindows: Migration = {
  id: 1,
  name: "rate_limit_windows",
  sqlite: `
CREATE TABLE IF NOT EXISTS rate_limit_windows (
  key TEXT NOT NULL PRIMARY KEY,
  count INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS rate_limit_windows_expires_at_idx ON rate_limit_windows (expires_at);
`,
  postgres: `
CREATE TABLE IF NOT EXISTS rate_limit_windows (
  key TEXT NOT NULL PRIMARY KEY,
  count BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS rate_limit_windows_expires_at_idx ON rate_limit_windows (expires_at);
`
}

/** The store's migrations, in id order. */
export const rateLimitMigrations = [rateLimitWindows] as const
