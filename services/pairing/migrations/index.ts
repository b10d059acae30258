/** The pairing subsystem's migrations, in id order (applied by `PairingsRepo.layer`). */
import { nodePairingsTable } from "./0001_node_pairings.ts"

/** Every pairing migration. */
export const pairingMigrations = [nodePairingsTable] as const
