/**
 * Provider OAuth migration 1: `oauth_pending`, one row per started
 * authorization (reference §7.11). `state` (32 random bytes, base64url) is
 * the key. The PKCE verifier is stored as is: it lives at most 10 minutes,
 * is used once, and is worthless without the authorization code, which only
 * the provider's redirect carries (docs/provider-oauth.md "State and PKCE").
 * Times are ISO-8601 UTC text with millisecond precision on both dialects,
 * so they compare as text. `consumed` is 0 until the callback takes the row
 * (one conditional write).
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const table = `CREATE TABLE oauth_pending (
  state TEXT NOT NULL PRIMARY KEY,
  provider_id TEXT NOT NULL,
  agent_id TEXT NOT NULL,
  pkce_verifier TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  consumed INTEGER NOT NULL DEFAULT 0 CHECK (consumed IN (0, 1)),
  consumed_at TEXT NULL
);
CREATE INDEX oauth_pending_expires_idx ON oauth_pending (expires_at);
`

/** Creates `oauth_pending` and its expiry index (housekeeping deletes expired rows). */
export const oauthPendingTable: Migration = { id: 1, name: "oauth_pending", sqlite: table, postgres: table }
