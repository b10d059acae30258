/**
 * The secrets' tables (layers/storage/table.ts): `secret_handles` and the
 * `secret_resolutions` log. The values live in the provider's table
 * (layers/secrets/tables.ts).
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { secretsMigrations } from "./migrations/index.ts"
import { SecretHandleRow, SecretResolutionRow } from "./SecretsRepo.ts"

const owner = { subsystem: "secrets", migrations: secretsMigrations }

/** The secrets' table declarations. */
export const SecretsTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "secret_handles", primaryKey: ["handle_id"], row: SecretHandleRow, owner }),
  table({ name: "secret_resolutions", primaryKey: ["id"], row: SecretResolutionRow, owner, references: ["secret_handles"] })
]
