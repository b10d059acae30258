/** The watchers subsystem's migrations, in id order (applied by `WatchersRepo.layer`). */
import { watchersTables } from "./0001_watchers.ts"
import { watcherNonceKey } from "./0002_nonce_key.ts"

/** Every watchers migration. */
export const watchersMigrations = [watchersTables, watcherNonceKey] as const
