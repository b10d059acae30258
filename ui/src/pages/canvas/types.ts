/** The canvas shapes, from the declarations the server uses (services/canvas/schema.ts). */
export type { CanvasMeta } from "../../../../services/canvas/schema.ts"
