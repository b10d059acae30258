/**
 * Watchers errors: the gateway-wide 400 `invalid_request` (a bad body, a
 * `trigger_config` that does not fit its trigger type, an unknown secret
 * handle, an id that is not a positive integer; the message names the field)
 * and 404 `not_found` (an unknown or deleted watcher). The signed webhook's
 * own errors live in `webhook/errors.ts`.
 *
 * @module
 */
export { InvalidRequest, NotFound } from "../shared/errors.ts"
