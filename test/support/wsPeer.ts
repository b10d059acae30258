/**
 * A raw WebSocket peer for protocol tests: Ed25519 identity, any credential
 * transport, manual handshake steps, and a message inbox.
 */
import { generateKeyPairSync, sign } from "node:crypto"
import WebSocket from "ws"
import { deviceIdFromPubkey, proofTranscript } from "../../services/ws-sessions/deviceIdentity.ts"

/** A device identity (base64url DER SPKI public key, Node key object for signing). */
export interface TestIdentity {
  readonly deviceId: string
  readonly pubkey: string
  readonly sign: (data: Buffer) => string
}

/** A fresh Ed25519 identity. */
export const makeIdentity = (): TestIdentity => {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519")
  const pubkey = publicKey.export({ format: "der", type: "spki" }).toString("base64url")
  return { deviceId: deviceIdFromPubkey(pubkey), pubkey, sign: (data) => sign(null, data, privateKey).toString("base64url") }
}

/** An open socket with an inbox of parsed messages and close information. */
export interface TestPeer {
  readonly ws: WebSocket
  readonly protocol: string
  /** Sends a JSON value (or a raw string). */
  readonly send: (message: unknown) => void
  /** Next message matching `predicate` (default: any), waiting up to `timeoutMs`. */
  readonly next: (predicate?: (m: any) => boolean, timeoutMs?: number) => Promise<any>
  /** Resolves with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>
  /** Request/response helper after the handshake. */
  readonly request: (type: string, payload?: unknown) => Promise<any>
}

/** How to present the token. */
export type Transport = "bearer" | "subprotocol" | "subprotocol-reversed" | "cookie" | "none"

/** Opens a socket to `url` (`http://host:port`), presenting `token` as `transport`. */
export const openPeer = (
  url: string,
  token: string,
  transport: Transport = "bearer",
  options: { readonly path?: string; readonly origin?: string; readonly extraProtocols?: ReadonlyArray<string>; readonly autoPong?: boolean } = {}
): Promise<TestPeer> => {
  const wsUrl = url.replace(/^http/, "ws") + (options.path ?? "/ws")
  const headers: Record<string, string> = {}
  let protocols: Array<string> = [...(options.extraProtocols ?? [])]
  const auth = `svc-auth.${Buffer.from(token).toString("base64url")}`
  if (transport === "bearer") headers.authorization = `Bearer ${token}`
  if (transport === "subprotocol") protocols = ["svc-v1", auth, ...protocols]
  if (transport === "subprotocol-reversed") protocols = [auth, "svc-v1", ...protocols]
  if (transport === "cookie") {
    headers.cookie = `svc_admin_token=${token}`
    headers.origin = options.origin ?? url
  }
  const ws = new WebSocket(wsUrl, protocols, { headers, autoPong: options.autoPong ?? true })
  const inbox: Array<any> = []
  const waiters: Array<{ predicate: (m: any) => boolean; resolve: (m: any) => void }> = []
  ws.on("message", (data) => {
    const text = data.toString()
    let message: any
    try {
      message = JSON.parse(text)
    } catch {
      message = text
    }
    const waiter = waiters.findIndex((w) => w.predicate(message))
    if (waiter !== -1) waiters.splice(waiter, 1)[0].resolve(message)
    else inbox.push(message)
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))
  )
  const next = (predicate: (m: any) => boolean = () => true, timeoutMs = 5000) => {
    const i = inbox.findIndex(predicate)
    if (i !== -1) return Promise.resolve(inbox.splice(i, 1)[0])
    return new Promise<any>((resolve, reject) => {
      const waiter = { predicate, resolve: (m: any) => (clearTimeout(timer), resolve(m)) }
      const timer = setTimeout(() => {
        // A waiter that timed out must not swallow a later message.
        const i = waiters.indexOf(waiter)
        if (i !== -1) waiters.splice(i, 1)
        reject(new Error("timed out waiting for a message"))
      }, timeoutMs)
      waiters.push(waiter)
    })
  }
  let counter = 0
  const peer: TestPeer = {
    ws,
    get protocol() {
      return ws.protocol
    },
    send: (message) => ws.send(typeof message === "string" ? message : JSON.stringify(message)),
    next,
    closed,
    request: async (type, payload) => {
      const request_id = `r-${++counter}-${Math.random().toString(36).slice(2)}`
      ws.send(JSON.stringify({ request_id, type, payload }))
      return next((m) => m?.request_id === request_id && "ok" in m)
    }
  }
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(peer))
    ws.once("unexpected-response", (_req, res) => reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode, headers: res.headers })))
    ws.once("error", reject)
  })
}

/** Runs connect.init + connect.proof; returns the proof result. */
export const handshake = async (
  peer: TestPeer,
  identity: TestIdentity,
  role: "client" | "node" = "client",
  capabilities: ReadonlyArray<{ id: string; version?: string }> = []
): Promise<{ client_id: string; device_id: string; role: string }> => {
  const init = await peer.request("connect.init", {
    protocol_rev: 2,
    role,
    device: { device_id: identity.deviceId, pubkey: identity.pubkey, label: "test" },
    capabilities
  })
  if (!init.ok) throw new Error(`connect.init failed: ${JSON.stringify(init)}`)
  const { connection_id, challenge } = init.result
  const proof = identity.sign(proofTranscript({ protocolRev: 2, role, deviceId: identity.deviceId, connectionId: connection_id, challenge }))
  const res = await peer.request("connect.proof", { connection_id, proof })
  if (!res.ok) throw new Error(`connect.proof failed: ${JSON.stringify(res)}`)
  return res.result
}

/** Opens and handshakes in one step. */
export const connectPeer = async (
  url: string,
  token: string,
  options: { role?: "client" | "node"; transport?: Transport; capabilities?: ReadonlyArray<{ id: string; version?: string }>; identity?: TestIdentity } = {}
) => {
  const identity = options.identity ?? makeIdentity()
  const peer = await openPeer(url, token, options.transport ?? "bearer")
  const result = await handshake(peer, identity, options.role ?? "client", options.capabilities ?? [])
  return { peer, identity, result }
}
