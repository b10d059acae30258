/**
 * The canvas subsystem's table (layers/storage/table.ts): `canvas_artifacts`.
 *
 * @module
 */
import { table, type TableDeclaration } from "../../layers/storage/table.ts"
import { CanvasRow } from "./CanvasRepo.ts"
import { canvasMigrations } from "./migrations/index.ts"

const owner = { subsystem: "canvas", migrations: canvasMigrations }

/** The canvas table declarations. */
export const CanvasTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "canvas_artifacts", primaryKey: ["canvas_id"], row: CanvasRow, owner })
]
