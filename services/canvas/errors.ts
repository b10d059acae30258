/**
 * Canvas errors: the gateway-wide classes (services/shared/errors.ts) —
 * 400 `invalid_request` (a body that is not a publish request, a malformed
 * id), 404 `not_found` (no page with that id), 413 `payload_too_large`
 * (content over `canvasMaxBytes`).
 *
 * @module
 */
export { InvalidRequest, NotFound, PayloadTooLarge } from "../shared/errors.ts"
