/**
 * What the PostgreSQL backplane (postgres.ts) writes to its tables: a
 * connection's directory entry as plain JSON (a device principal's scopes as
 * an array) and the bodies of outbox rows, one kind per delivery. Rows are
 * written and read by the backplane only.
 *
 * @module
 */
import type { Principal } from "../shared/principal.ts"
import type { Audience, ConnectionEntry, PeerResponse } from "./schema.ts"

/** An entry as stored (`backplane_connections.entry`). */
interface StoredEntry extends Omit<ConnectionEntry, "principal" | "readyCapabilities"> {
  readonly principal: Omit<Principal, "scopes"> & { readonly scopes?: ReadonlyArray<string> }
}

/** The `entry` column of a connection (everything but the ready set, stored on its own). */
export const encodeEntry = (entry: ConnectionEntry): string => {
  const principal = entry.principal.kind === "device" ? { ...entry.principal, scopes: [...entry.principal.scopes] } : entry.principal
  const stored: StoredEntry = {
    connectionId: entry.connectionId,
    role: entry.role,
    deviceId: entry.deviceId,
    device: entry.device,
    principal,
    capabilities: entry.capabilities,
    connectedAt: entry.connectedAt,
    remoteAddress: entry.remoteAddress
  }
  return JSON.stringify(stored)
}

/** The entry of a stored connection (its `entry` and `ready` columns); throws on a row that is not one. */
export const decodeEntry = (entry: string, ready: string): ConnectionEntry => {
  const stored = JSON.parse(entry) as StoredEntry
  if (typeof stored?.connectionId !== "string" || typeof stored.principal?.kind !== "string") throw new Error("not a directory entry")
  const principal = (stored.principal.kind === "device"
    ? { ...stored.principal, scopes: new Set(stored.principal.scopes ?? []) }
    : stored.principal) as Principal
  return { ...stored, principal, readyCapabilities: new Set(JSON.parse(ready) as Array<string>) }
}

/** How a forwarded request ended on the instance holding the connection. */
export type RequestOutcome =
  | { readonly ok: true; readonly result: unknown }
  | {
    readonly ok: false
    readonly tag: "PeerNotConnected" | "PeerRequestTimeout" | "PeerDisconnected" | "PeerRequestFailed"
    readonly message: string
    readonly error?: PeerResponse["error"]
  }

/**
 * An outbox row's body, by kind. `event`: to every instance (`audience`) or
 * to the owner of `connectionIds`; `close`, `request`: to the owner of the
 * connection; `reply`: the outcome of a forwarded request, to the instance
 * that asked (`origin`).
 */
export type OutboxMessage =
  | { readonly kind: "event"; readonly type: string; readonly text: string; readonly audience?: Audience; readonly connectionIds?: ReadonlyArray<string> }
  | { readonly kind: "close"; readonly connectionId: string; readonly code: number; readonly reason: string }
  | {
    readonly kind: "request"
    readonly origin: string
    readonly connectionId: string
    readonly requestId: string
    readonly type: string
    readonly payload: unknown
    readonly timeoutMs: number
  }
  | { readonly kind: "reply"; readonly connectionId: string; readonly requestId: string; readonly outcome: RequestOutcome }
