/**
 * Stand-ins for live WebSocket connections in service tests: a
 * `ConnectionHandle` that records what it is sent (parsed) and how it was
 * closed, and device-token principals.
 */
import { adminPrincipal, type Principal } from "../../services/auth/principal.ts"
import type { ConnectionHandle } from "../../services/ws-sessions/ConnectionRegistry.ts"
import type { CapabilityDescriptor } from "../../services/ws-sessions/schema.ts"

/** A device-token principal of `deviceId` with `scopes`. */
export const devicePrincipal = (deviceId: string, scopes: ReadonlyArray<string>, role: "client" | "node" = "client"): Principal => ({
  kind: "device",
  tokenId: `t-${deviceId}`,
  deviceId,
  role,
  scopes: new Set(scopes)
})

/** What a fake connection is. Defaults: device `dev_<id>`, role `client`, the admin principal, nothing advertised or ready. */
export interface FakeConnectionOptions {
  readonly id: string
  readonly deviceId?: string
  readonly role?: "client" | "node"
  readonly principal?: Principal
  readonly advertised?: ReadonlyArray<CapabilityDescriptor>
  readonly ready?: ReadonlyArray<string>
  /** Called with every request the gateway sends it (after it is recorded). */
  readonly onRequest?: (request: any) => void
}

/** A live connection whose outbound messages are parsed into `received` and whose closes are recorded in `closes`. */
export const fakeConnection = (options: FakeConnectionOptions) => {
  const received: Array<any> = []
  const closes: Array<{ code: number; reason: string }> = []
  const handle: ConnectionHandle = {
    connectionId: options.id,
    role: options.role ?? "client",
    deviceId: options.deviceId ?? `dev_${options.id}`,
    device: {},
    principal: options.principal ?? adminPrincipal,
    capabilities: options.advertised ?? [],
    readyCapabilities: new Set(options.ready ?? []),
    connectedAt: new Date(0).toISOString(),
    remoteAddress: undefined,
    send: (text) => {
      const message = JSON.parse(text)
      received.push(message)
      if (!("event_id" in message) && options.onRequest !== undefined) options.onRequest(message)
      return true
    },
    close: (code, reason) => void closes.push({ code, reason })
  }
  return {
    handle,
    received,
    closes,
    /** Requests (not events) of `type` it was sent. */
    requests: (type = "task.execute") => received.filter((m) => m.type === type && !("event_id" in m)),
    /** Events of `type` it was sent. */
    events: (type: string) => received.filter((m) => m.type === type && "event_id" in m)
  }
}
