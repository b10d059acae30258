/**
 * Storage infrastructure: SQL clients (SQLite via libsql, PostgreSQL via
 * `@effect/sql-pg`), the per-subsystem migration helper and the `StorageLive` layer.
 *
 * @since 0.1.0
 */
export { migrate, migrateAll, type Migration, MigrationFailed, type MigrationSet, migrationsTable } from "./migrations.ts"
export * as PgClient from "./PgClient.ts"
export * as SqliteClient from "./SqliteClient.ts"
export {
  DatabaseInfo,
  resolveStorageTarget,
  StorageConfigError,
  storageLayer,
  StorageLive,
  StorageMemoryTest
} from "./Storage.ts"
export type { StorageOptions, StorageTarget } from "./Storage.ts"
