/**
 * The shapes the {@link Backplane} carries (types only: no code, no server
 * modules, so the WS declarations may name them): who an event is for
 * ({@link Audience}), what the connection directory holds per connection
 * ({@link ConnectionEntry}; the live, local {@link ConnectionHandle} adds the
 * socket's `send`/`close`), the event envelope and a peer's response.
 *
 * @module
 */
import { type Duration, Schema } from "effect"
import type { Principal } from "../auth/principal.ts"
import type { DeviceRole } from "../auth/schema.ts"

/**
 * Who receives an event: peers whose role is in `roles` (all roles when
 * absent) and who hold ANY of `requiredScopes` (none needed when absent or
 * empty; the admin token always passes).
 */
export interface Audience {
  readonly roles?: ReadonlyArray<DeviceRole> | undefined
  /** The connection holds at least one of these (none: any connection of the roles). */
  readonly requiredScopes?: ReadonlyArray<string> | undefined
  /** The connection holds none of these (the admin token holds every scope, so it is never in such an audience). */
  readonly withoutScopes?: ReadonlyArray<string> | undefined
}

/** Optional device details sent in `connect.init`. */
export interface DeviceInfo {
  readonly label?: string | undefined
  readonly platform?: string | undefined
  readonly version?: string | undefined
  readonly mode?: string | undefined
}

/** A capability a peer advertises (`{id, version?}`; validated by `CapabilityDescriptor` of the WS schemas). */
export interface Capability {
  readonly id: string
  readonly version?: string
}

/**
 * One handshaken connection as the directory knows it: plain data (a
 * distributed backplane replicates it between instances). Delivery to it goes
 * through the backplane (`sendTo`, `request`, `close`), never through the entry.
 */
export interface ConnectionEntry {
  readonly connectionId: string
  readonly role: DeviceRole
  readonly deviceId: string
  readonly device: DeviceInfo
  readonly principal: Principal
  /** Capabilities advertised in `connect.init`. */
  readonly capabilities: ReadonlyArray<Capability>
  /** `capability.ready` set: advertised ∩ declared ready (ids); changed through `Backplane.setReady`. */
  readonly readyCapabilities: ReadonlySet<string>
  readonly connectedAt: string
  readonly remoteAddress: string | undefined
}

/**
 * A live connection of THIS instance, as its connection actor registers it:
 * the entry plus the socket. `send` enqueues one serialized message on the
 * connection's bounded outbound mailbox; it returns false when the connection
 * is closed or was just closed as a slow consumer (1013).
 */
export interface ConnectionHandle extends ConnectionEntry {
  readonly readyCapabilities: Set<string>
  readonly send: (message: string) => boolean
  readonly close: (code: number, reason: string) => void
}

/** The event envelope `{event_id, type, occurred_at, payload, scope?}` (gateway-api.md "Events"). */
export interface EventEnvelope {
  readonly event_id: string
  readonly type: string
  readonly occurred_at: string
  readonly payload: unknown
  readonly scope?: unknown
}

/** What a publish delivered. */
export interface Published {
  readonly envelope: EventEnvelope
  /** How many connections it was queued for. */
  readonly delivered: number
}

/** A peer's response to a gateway-initiated request (the WS response envelope). */
export interface PeerResponse {
  readonly request_id: string
  readonly type?: string | undefined
  readonly ok: boolean
  readonly result?: unknown
  readonly error?: { readonly code: string; readonly message: string; readonly details?: unknown } | undefined
}

/** Options of a gateway-initiated request. */
export interface RequestOptions {
  /** Time to wait for the answer (default 30 s). */
  readonly timeout?: Duration.Input | undefined
  /** The envelope's `request_id` (default `<type>-<uuid>`). */
  readonly requestId?: string | undefined
}

/**
 * The per-instance filter of the cluster-wide listings (`GET /connections`, `GET /presence`, `GET /nodes`;
 * docs/scaling.md "What an operator sees"): `?instance=<instance_id>` keeps what that instance holds. Without it a
 * listing covers every live instance of the cluster (one instance: itself).
 */
export const InstanceQuery = {
  instance: Schema.optionalKey(Schema.NonEmptyString.check(Schema.isMaxLength(128)).annotate({
    description:
      "Only what this instance holds (an `instance_id` of `GET /status` `peers`); omitted: the whole cluster. An id no live instance has lists nothing."
  }))
}

/** The decoded query: `instance` when given. */
export interface InstanceQuery {
  readonly instance?: string | undefined
}
