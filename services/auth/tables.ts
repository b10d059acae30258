/**
 * Authentication's table (layers/storage/table.ts): `device_tokens` (digests, never tokens).
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { DeviceTokenRow } from "./DeviceTokenRepo.ts"
import { authMigrations } from "./migrations/index.ts"

/** Authentication's table declarations. */
export const AuthTables: ReadonlyArray<TableDeclaration> = [
  table({
    name: "device_tokens",
    primaryKey: ["token_id"],
    row: DeviceTokenRow,
    owner: { subsystem: "auth", migrations: authMigrations }
  })
]
