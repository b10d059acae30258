/** The nodes subsystem's migrations, in id order (applied with every subsystem's at start). */
import { nodeAttempts } from "./0001_node_attempts.ts"

/** Every nodes migration. */
export const nodesMigrations = [nodeAttempts] as const
