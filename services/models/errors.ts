/**
 * Model catalog errors: the gateway-wide classes (services/shared/errors.ts)
 * — 404 `not_found` (no provider with that id), 400 `invalid_request` (a
 * malformed path).
 *
 * @module
 */
export { InvalidRequest, NotFound } from "../shared/errors.ts"
