/**
 * Provider OAuth's table (layers/storage/table.ts): `oauth_pending`, which
 * snapshots leave out.
 *
 * @module
 */
import { excludedTable, type TableDeclaration } from "../../layers/storage/table.ts"
import { providerOAuthMigrations } from "./migrations/index.ts"

/** Provider OAuth's table declarations. */
export const ProviderOAuthTables: ReadonlyArray<TableDeclaration> = [
  excludedTable(
    "oauth_pending",
    "started OAuth authorizations live at most 10 minutes and hold a PKCE verifier; a restored one would be expired or useless",
    { subsystem: "provider_oauth", migrations: providerOAuthMigrations }
  )
]
