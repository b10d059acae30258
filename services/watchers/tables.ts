/**
 * The watchers' tables (layers/storage/table.ts): `watchers` and `watcher_firings`.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { watchersMigrations } from "./migrations/index.ts"
import { WatcherFiringRow, WatcherRow } from "./WatchersRepo.ts"

const owner = { subsystem: "watchers", migrations: watchersMigrations }

/** The watchers' table declarations. */
export const WatchersTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "watchers", primaryKey: ["id"], row: WatcherRow, owner, references: ["plans"] }),
  table({ name: "watcher_firings", primaryKey: ["firing_id"], row: WatcherFiringRow, owner, references: ["watchers"] })
]
