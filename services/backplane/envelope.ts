/**
 * Pure helpers of delivery: whether a connection is in an event's audience,
 * and the serialized event envelope (built once per publish, whatever the
 * number of recipients). Shared by every backplane layer.
 *
 * @module
 */
import { hasScope } from "../auth/principal.ts"
import type { Audience, ConnectionEntry, EventEnvelope } from "./schema.ts"

/** True when `connection` belongs to `audience`. */
export const inAudience = (connection: ConnectionEntry, audience: Audience): boolean => {
  if (audience.roles !== undefined && !audience.roles.includes(connection.role)) return false
  if (audience.withoutScopes !== undefined && audience.withoutScopes.some((s) => hasScope(connection.principal, s))) return false
  const scopes = audience.requiredScopes
  if (scopes === undefined || scopes.length === 0) return true
  return scopes.some((s) => hasScope(connection.principal, s))
}

/**
 * The envelope of one event, serialized: `{event_id (uuid), type,
 * occurred_at (ISO 8601 of `now`, ms since the epoch), payload, scope?}`.
 */
export const eventEnvelope = (type: string, payload: unknown, now: number, scope?: unknown): { readonly envelope: EventEnvelope; readonly text: string } => {
  const envelope: EventEnvelope = {
    event_id: crypto.randomUUID(),
    type,
    occurred_at: new Date(now).toISOString(),
    payload,
    ...(scope !== undefined ? { scope } : {})
  }
  return { envelope, text: JSON.stringify(envelope) }
}
