/** The secrets subsystem's migrations, in id order (applied by `SecretsRepo.layer`). */
import { secretsTables } from "./0001_secrets.ts"

/** Every secrets migration. */
export const secretsMigrations = [secretsTables] as const
