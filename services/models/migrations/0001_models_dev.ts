/**
 * Models migration 1 (reference §7.6; docs/models.md): `models_dev_cache`,
 * one row (`cache_key` `models.dev`) holding the last catalog fetched from
 * models.dev (as decoded: only the fields the gateway keeps, JSON text; NULL
 * until a fetch succeeded), its `sha256` (of the body as fetched) and `etag`,
 * when models.dev last answered (`fetched_at`), when the catalog last
 * changed (`updated_at`), the last refresh's failure (`last_error`) and when
 * a refresh was last tried (`last_attempt_at`); `models_dev_refresh_leases`,
 * the lease that lets one refresh run at a time across gateway instances
 * (`owner` holds it until `lease_until`). Times are ISO-8601 UTC text with
 * millisecond precision on both dialects, so they compare as text.
 *
 * @since 0.1.0
 */
import type { Migration } from "../../../layers/storage/migrations.ts"

const sql = `
CREATE TABLE models_dev_cache (
  cache_key TEXT PRIMARY KEY,
  catalog_json TEXT NULL,
  sha256 TEXT NULL,
  etag TEXT NULL,
  fetched_at TEXT NULL,
  updated_at TEXT NULL,
  last_error TEXT NULL,
  last_attempt_at TEXT NULL
);
CREATE TABLE models_dev_refresh_leases (
  lease_key TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  lease_until TEXT NOT NULL
);
`

/** Creates `models_dev_cache` and `models_dev_refresh_leases`. */
export const modelsDevTables: Migration = {
  id: 1,
  name: "models_dev",
  sqlite: sql,
  postgres: sql
}
