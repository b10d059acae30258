/** The watchers subsystem's migrations, in id order (applied by `WatchersRepo.layer`). */
import { watchersTables } from "./0001_watchers.ts"

/** Every watchers migration. */
export const watchersMigrations = [watchersTables] as const
