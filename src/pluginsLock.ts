/**
 * `svc-gateway plugins lock <id>` (src/commands.ts), loaded on demand: the
 * plugin host's lock writer (services/plugins/lock.ts) and where plugins live.
 *
 * @module
 */
export { lockPlugin } from "../services/plugins/lock.ts"
export { pluginsDirectory } from "../services/plugins/discovery.ts"
