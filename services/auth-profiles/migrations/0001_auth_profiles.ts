/**
 * Auth-profiles migration 1: `auth_profiles` and `session_provider_pins`
 * (reference §7.1, §7.11; docs/auth-profiles.md).
 *
 * Each secret handle has its own column (`api_key_handle`,
 * `access_token_handle`, `refresh_token_handle`), so rotation and revocation
 * (`SecretReferences`) are plain conditional UPDATEs. `labels` is JSON text
 * (NULL when none). Times are ISO-8601 UTC text with millisecond precision on
 * both dialects. A pin is unique per (agent, session, provider); deleting a
 * profile is not offered, so pins need no cascade.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `
CREATE TABLE auth_profiles (
  auth_profile_id TEXT PRIMARY KEY,
  agent_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('api_key', 'oauth', 'token')),
  api_key_handle TEXT NULL,
  access_token_handle TEXT NULL,
  refresh_token_handle TEXT NULL,
  labels TEXT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  disabled_reason TEXT NULL
);
CREATE INDEX auth_profiles_agent_provider_idx ON auth_profiles (agent_id, provider, status, created_at);
CREATE INDEX auth_profiles_api_key_idx ON auth_profiles (api_key_handle);
CREATE INDEX auth_profiles_access_token_idx ON auth_profiles (access_token_handle);
CREATE INDEX auth_profiles_refresh_token_idx ON auth_profiles (refresh_token_handle);
CREATE TABLE session_provider_pins (
  agent_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  provider TEXT NOT NULL,
  auth_profile_id TEXT NOT NULL,
  pinned_at TEXT NOT NULL,
  PRIMARY KEY (agent_id, session_id, provider)
);
`

/** Creates `auth_profiles` (with lookups by agent/provider and by handle) and `session_provider_pins`. */
export const authProfilesTables: Migration = {
  id: 1,
  name: "auth_profiles",
  sqlite: sql,
  postgres: sql
}
