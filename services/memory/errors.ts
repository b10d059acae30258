/**
 * The memory subsystem's client-visible errors (gateway-api.md "Errors";
 * reference §5.3): the gateway-wide `not_found` and `invalid_request`
 * (services/shared/errors.ts) with the documented messages, built in one
 * place.
 *
 * @module
 */
import { InvalidRequest, NotFound } from "../shared/errors.ts"

/** `not_found` "memory item not found": no item with that id for that agent. */
export const itemNotFound = (): NotFound => new NotFound({ message: "memory item not found" })

/** `invalid_request` "invalid cursor": a cursor this listing or search did not issue (tampered, foreign, stale). */
export const invalidCursor = (): InvalidRequest => new InvalidRequest({ message: "invalid cursor" })

/** `invalid_request` "incompatible patch fields for kind=<kind>: <fields>": a patch field of another kind. */
export const incompatiblePatch = (kind: string, fields: ReadonlyArray<string>): InvalidRequest =>
  new InvalidRequest({ message: `incompatible patch fields for kind=${kind}: ${fields.join(", ")}` })

/** `invalid_request`: an empty patch. */
export const emptyPatch = (): InvalidRequest => new InvalidRequest({ message: "patch: at least one field is required" })

/** `invalid_request`: `memory.forget` without the exact confirmation. */
export const forgetNotConfirmed = (): InvalidRequest =>
  new InvalidRequest({ message: "confirm: must be exactly \"FORGET\"" })

/** `invalid_request` "invalid export id": `GET /memory/exports/:id` with an id that is not an artifact id (a UUID). */
export const invalidExportId = (): InvalidRequest => new InvalidRequest({ message: "invalid export id: expected an artifact id (a UUID)" })

/** `not_found` "memory export not found": no artifact with that id, or one that is not a memory export. */
export const exportNotFound = (): NotFound => new NotFound({ message: "memory export not found" })
