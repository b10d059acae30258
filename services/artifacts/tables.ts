/**
 * The artifacts' table (layers/storage/table.ts): `artifacts`, the metadata
 * of stored bytes. Its run link is logical (no foreign key: a memory export
 * has none, and a run's rows may be pruned while its artifacts are kept).
 * The bytes themselves are not part of a snapshot.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { ArtifactRow } from "./ArtifactsRepo.ts"
import { artifactsMigrations } from "./migrations/index.ts"

const owner = { subsystem: "artifacts", migrations: artifactsMigrations }

/** The artifacts' table declarations. */
export const ArtifactsTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "artifacts", primaryKey: ["artifact_id"], row: ArtifactRow, owner })
]
