/** The watcher shapes, from the declarations the server uses (services/watchers/schema.ts). */
export type { TriggerType, Watcher, WatcherFiring } from "../../../../services/watchers/schema.ts"
export { MIN_INTERVAL_MS, TRIGGER_TYPES } from "../../../../services/watchers/schema.ts"
