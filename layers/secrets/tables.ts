/**
 * The `db` secret provider's table (layers/storage/table.ts):
 * `secret_versions`, the encrypted values (ciphertext, IV and tag; never
 * plaintext), one row per handle version.
 *
 * @module
 */
import { table, type TableDeclaration } from "../storage/table.ts"
import { SecretVersionRow } from "./dbProvider.ts"
import { secretsDbMigrations } from "./migrations.ts"

/** The `db` secret provider's table declarations. */
export const SecretsDbTables: ReadonlyArray<TableDeclaration> = [
  table({
    name: "secret_versions",
    primaryKey: ["handle_id", "version"],
    row: SecretVersionRow,
    owner: { subsystem: "secrets_db", migrations: secretsDbMigrations },
    references: ["secret_handles"]
  })
]
