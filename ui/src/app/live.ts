/**
 * The console's live connection: one WebSocket client of the SDK
 * (src/client/browser.ts) per page load, authenticated by the session cookie
 * (credentials `session`: the browser sends the HttpOnly cookie on the
 * same-origin upgrade, script never holds the token), with this browser's
 * device key kept in IndexedDB. Pages subscribe to event types; while the
 * connection is down they fall back to polling (useResource.ts).
 *
 * A device token is bound to the device it was issued for: a console signed in
 * with one connects only when the token was issued for this browser's device id
 * (shown in the header); otherwise it stays on polling and says why.
 */
import { GatewayClient, indexedDbDeviceIdentityStore, loadOrCreateIdentity } from "../../../src/client/browser.ts"
import type { WsEventEnvelope } from "../../../src/client/browser.ts"

/** The state of the live connection, for the header's indicator. */
export interface LiveState {
  readonly status: "connecting" | "live" | "reconnecting" | "offline"
  /** Why it is offline (a refused handshake, no WebCrypto Ed25519...). */
  readonly reason?: string | undefined
  /** This browser's device id, once its key is loaded. */
  readonly deviceId?: string | undefined
}

type EventListener = (event: WsEventEnvelope) => void

const eventListeners = new Set<EventListener>()
const stateListeners = new Set<(state: LiveState) => void>()
let state: LiveState = { status: "connecting" }
let client: GatewayClient | undefined

const setState = (next: LiveState) => {
  state = next
  for (const listener of stateListeners) listener(state)
}

/** The current state. */
export const liveState = (): LiveState => state

/** Calls `listener` on every state change; returns the function that stops it. */
export const onLiveState = (listener: (state: LiveState) => void): (() => void) => {
  stateListeners.add(listener)
  return () => stateListeners.delete(listener)
}

/** Calls `listener` with every event; returns the function that stops it. */
export const onEvent = (listener: EventListener): (() => void) => {
  eventListeners.add(listener)
  return () => eventListeners.delete(listener)
}

/** Opens the live connection (once; after sign-in). Never throws: failures end in state `offline`. */
export const startLive = async (): Promise<void> => {
  if (client !== undefined) return
  let deviceId: string | undefined
  try {
    const identity = await loadOrCreateIdentity(indexedDbDeviceIdentityStore({ database: "svc-console" }))
    deviceId = identity.device_id
    const next = new GatewayClient({
      url: location.origin,
      credentials: "session",
      role: "client",
      identity,
      device: { label: "operator console", platform: "browser", mode: "ui" }
    })
    client = next
    next.on("event", (event) => {
      for (const listener of eventListeners) listener(event)
    })
    next.on("connected", () => setState({ status: "live", deviceId }))
    next.on("reconnecting", () => setState({ status: "reconnecting", deviceId }))
    setState({ status: "connecting", deviceId })
    await next.connect()
  } catch (error) {
    client = undefined
    setState({ status: "offline", deviceId, reason: error instanceof Error ? error.message : String(error) })
  }
}

/** Closes the live connection (sign-out). */
export const stopLive = async (): Promise<void> => {
  const current = client
  client = undefined
  setState({ status: "connecting" })
  await current?.close()
}
