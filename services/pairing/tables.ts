/**
 * Pairing's table (layers/storage/table.ts): `node_pairings`.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { pairingMigrations } from "./migrations/index.ts"
import { PairingRow } from "./PairingsRepo.ts"

/** Pairing's table declarations. */
export const PairingTables: ReadonlyArray<TableDeclaration> = [
  table({
    name: "node_pairings",
    primaryKey: ["pairing_id"],
    row: PairingRow,
    owner: { subsystem: "pairing", migrations: pairingMigrations }
  })
]
