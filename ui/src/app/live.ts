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
 *
 * Pages whose data the gateway serves over WebSocket only (`memory.*`,
 * `work.*`) send their requests on the same connection with {@link request}.
 */
import {
  GatewayClient,
  GatewayClientError,
  GatewayRequestError,
  indexedDbDeviceIdentityStore,
  loadOrCreateIdentity
} from "../../../src/client/browser.ts"
import type { RequestArgs, RequestResult, WsEventEnvelope } from "../../../src/client/browser.ts"
import { ApiError, statusOf } from "./api.ts"

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

/** How long {@link request} waits for the connection to come up (ms). */
const CONNECT_WAIT_MS = 15_000

/** Resolves once the connection is live; rejects when it ends offline or does not come up in time. */
const whenLive = (): Promise<GatewayClient> => {
  const now = liveState()
  if (now.status === "live" && client !== undefined) return Promise.resolve(client)
  if (now.status === "offline") return Promise.reject(offline(now.reason))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop()
      reject(offline("the live connection did not come up"))
    }, CONNECT_WAIT_MS)
    const stop = onLiveState((next) => {
      if (next.status === "live" && client !== undefined) {
        clearTimeout(timer)
        stop()
        resolve(client)
      } else if (next.status === "offline") {
        clearTimeout(timer)
        stop()
        reject(offline(next.reason))
      }
    })
  })
}

const offline = (reason: string | undefined) =>
  new ApiError(0, "offline", `this page needs the live connection (WebSocket), which is down${reason ? `: ${reason}` : ""}`)

/**
 * Sends a WebSocket request on the console's connection (waiting for it to be
 * live) and resolves with its result. Rejects with an {@link ApiError}: the
 * gateway's `code` as `error`, its HTTP equivalent as `status` (403
 * `forbidden`, 404 `not_found`, 409 `wip_limit_exceeded`…) and its
 * `details`; `offline` (status 0) when the connection is down.
 */
export const request = async <K extends string>(type: K, ...args: RequestArgs<K>): Promise<RequestResult<K, unknown>> => {
  const live = await whenLive()
  try {
    return await live.request<unknown, K>(type, ...args)
  } catch (failure) {
    if (failure instanceof GatewayRequestError) {
      throw new ApiError(statusOf(failure.code), failure.code, failure.message, failure.details)
    }
    if (failure instanceof GatewayClientError) throw new ApiError(0, failure.code, failure.message)
    throw failure
  }
}
