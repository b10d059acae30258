/** The canvas subsystem's migrations, in id order (applied by `CanvasRepo.layer`). */
import { canvasArtifactsTable } from "./0001_canvas_artifacts.ts"

/** Every canvas migration. */
export const canvasMigrations = [canvasArtifactsTable] as const
