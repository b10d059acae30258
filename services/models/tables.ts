/**
 * The models subsystem's tables (layers/storage/table.ts): neither is in
 * snapshots — the cache is refetched (or the bundled catalog served) and the
 * lease is only meaningful while a refresh runs.
 *
 * @module
 */
import { excludedTable, type TableDeclaration } from "../../layers/storage/table.ts"
import { modelsMigrations } from "./migrations/index.ts"

const owner = { subsystem: "models", migrations: modelsMigrations }

/** The models table declarations. */
export const ModelsTables: ReadonlyArray<TableDeclaration> = [
  excludedTable(
    "models_dev_cache",
    "a cache of the models.dev catalog: refetched from models.dev, else the bundled snapshot is served",
    owner
  ),
  excludedTable("models_dev_refresh_leases", "the refresh lease, meaningful only while a refresh runs (60 s at most)", owner)
]
