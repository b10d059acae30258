/**
 * Storage infrastructure: SQL clients (SQLite via libsql, PostgreSQL via
 * `@effect/sql-pg`), the migrations registry and the `StorageLive` layer.
 *
 * @since 0.1.0
 */
export * as Migrations from "./migrations/index.ts"
export * as PgClient from "./PgClient.ts"
export * as SqliteClient from "./SqliteClient.ts"
export {
  DatabaseInfo,
  MigrationFailed,
  resolveStorageTarget,
  runMigrations,
  StorageConfigError,
  storageLayer,
  StorageLive,
  StorageMemoryTest
} from "./Storage.ts"
export type { StorageOptions, StorageTarget } from "./Storage.ts"
