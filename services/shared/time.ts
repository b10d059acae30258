/**
 * Times on the wire and in the database are ISO 8601 strings in UTC with
 * milliseconds (`2026-11-23T21:27:34.215Z`).
 *
 * @module
 */

/** `ms` (milliseconds since the epoch, e.g. from `Clock.currentTimeMillis`) as an ISO 8601 UTC string. */
export const isoTime = (ms: number): string => new Date(ms).toISOString()
