/** The artifacts subsystem's migrations, in id order (applied by `ArtifactsRepo.layer`). */
import { artifactsTable } from "./0001_artifacts.ts"

/** Every artifacts migration. */
export const artifactsMigrations = [artifactsTable] as const
