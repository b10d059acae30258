/** The snapshot shapes, from the declarations the server uses (services/snapshots/schema.ts). */
export type { SnapshotBundle } from "../../../../services/snapshots/schema.ts"
