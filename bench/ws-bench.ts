/**
 * WebSocket load: closed-loop request/response round trips (`ping`) over N
 * connections, and resident memory per idle connection of a server process.
 */
import { readFileSync } from "node:fs"
import WebSocket from "ws"
import { generateDeviceIdentity, signProof } from "../src/client/identity.ts"

/** One measured run. */
export interface RoundTripRun {
  readonly connections: number
  readonly roundTrips: number
  readonly seconds: number
  readonly perSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

/** How a socket is opened: its handshake role and advertised capabilities, and a listener attached before anything arrives. */
export interface OpenOptions {
  readonly role?: "client" | "node"
  readonly capabilities?: ReadonlyArray<{ readonly id: string }>
  readonly onMessage?: (data: WebSocket.RawData) => void
}

/** Opens one socket (and, for the gateway, completes handshake v2, as a client unless `options.role` says otherwise). */
export const openSocket = async (baseUrl: string, token: string, handshake: boolean, options: OpenOptions = {}): Promise<WebSocket> => {
  const ws = new WebSocket(baseUrl.replace(/^http/, "ws") + "/ws", { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false })
  if (options.onMessage !== undefined) ws.on("message", options.onMessage)
  const role = options.role ?? "client"
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve())
    ws.once("error", reject)
  })
  if (!handshake) return ws
  const identity = generateDeviceIdentity()
  const reply = (id: string) =>
    new Promise<{ ok: boolean; result: Record<string, string> }>((resolve) => {
      const on = (data: WebSocket.RawData) => {
        const m = JSON.parse(data.toString())
        if (m.request_id === id) {
          ws.off("message", on)
          resolve(m)
        }
      }
      ws.on("message", on)
    })
  const initReply = reply("init")
  ws.send(JSON.stringify({
    request_id: "init",
    type: "connect.init",
    payload: { protocol_rev: 2, role, device: { device_id: identity.device_id, pubkey: identity.pubkey }, capabilities: options.capabilities ?? [] }
  }))
  const init = await initReply
  const proofReply = reply("proof")
  const proof = signProof(identity, { role, connectionId: init.result.connection_id, challenge: init.result.challenge })
  ws.send(JSON.stringify({ request_id: "proof", type: "connect.proof", payload: { connection_id: init.result.connection_id, proof } }))
  if (!(await proofReply).ok) throw new Error("handshake refused")
  return ws
}

/**
 * Runs a closed loop on every socket for `seconds`: send `ping`, wait for
 * its response, repeat. Returns throughput and latency percentiles.
 */
export const runRoundTrips = async (sockets: ReadonlyArray<WebSocket>, seconds: number): Promise<RoundTripRun> => {
  const latencies: Array<number> = []
  const deadline = performance.now() + seconds * 1000
  let roundTrips = 0
  const started = performance.now()
  await Promise.all(sockets.map((ws, index) =>
    new Promise<void>((resolve) => {
      let counter = 0
      let sentAt = 0
      const sendNext = () => {
        if (performance.now() >= deadline) {
          ws.off("message", onMessage)
          resolve()
          return
        }
        sentAt = performance.now()
        ws.send(`{"request_id":"c${index}-${++counter}","type":"ping","payload":{}}`)
      }
      const onMessage = () => {
        latencies.push(performance.now() - sentAt)
        roundTrips++
        sendNext()
      }
      ws.on("message", onMessage)
      sendNext()
    })
  ))
  const elapsed = (performance.now() - started) / 1000
  latencies.sort((a, b) => a - b)
  return {
    connections: sockets.length,
    roundTrips,
    seconds: elapsed,
    perSecond: roundTrips / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99)
  }
}

/** Resident set size of a process, in bytes (from /proc). */
export const rssBytes = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const match = /VmRSS:\s+(\d+)\s+kB/.exec(status)
  return match === null ? 0 : Number(match[1]) * 1024
}

/** Opens `count` sockets in batches (so the server is not flooded), returning them. */
export const openMany = async (
  baseUrl: string,
  token: string,
  handshake: boolean,
  count: number,
  options: OpenOptions = {}
): Promise<Array<WebSocket>> => {
  const sockets: Array<WebSocket> = []
  for (let i = 0; i < count; i += 50) {
    const batch = await Promise.all(Array.from({ length: Math.min(50, count - i) }, () => openSocket(baseUrl, token, handshake, options)))
    sockets.push(...batch)
  }
  return sockets
}

/** Closes sockets and waits until they are closed. */
export const closeAll = (sockets: ReadonlyArray<WebSocket>): Promise<void> =>
  Promise.all(sockets.map((ws) =>
    new Promise<void>((resolve) => {
      if (ws.readyState === WebSocket.CLOSED) return resolve()
      ws.once("close", () => resolve())
      ws.close()
    })
  )).then(() => undefined)
