/**
 * WebSocket event fan-out and connection storms (issue 22 §3), driven by
 * `ws-run.ts`:
 *
 * - Storm: N operator clients connect (handshake v2 on the gateway, 50 at a
 *   time); every event any of them receives until the server is quiet is
 *   counted (the gateway announces each connection with `presence.*`).
 * - Fan-out: one node sends `capability.ready`; the server broadcasts one
 *   event to the N operator clients; the time from the send until the last of
 *   them has it, per repetition.
 *
 * @module
 */
import type WebSocket from "ws"
import { openMany, openSocket } from "./ws-bench.ts"

/** Events received by N clients while they connected. */
export interface StormRun {
  readonly connections: number
  /** Events (envelopes with an `event_id`) received by all clients together. */
  readonly events: number
  /** Seconds from the first connect to the last event received. */
  readonly seconds: number
  /** Clients the server closed meanwhile (a late pong, a slow consumer); the fan-out rounds use the others. */
  readonly dropped: number
}

/** N connected operator clients and one node, ready for fan-out rounds. */
export interface Audience {
  /** The operator clients still open after the storm. */
  readonly operators: ReadonlyArray<WebSocket>
  readonly node: WebSocket
  readonly storm: StormRun
  /** Called by each operator socket that receives the `capability.ready` event of the round in progress. */
  arrived: (() => void) | undefined
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const isEvent = (text: string) => text.startsWith("{\"event_id\"")
const isCapabilityEvent = (text: string) => isEvent(text) && text.includes("\"type\":\"capability.ready\"")

/**
 * Connects `count` operator clients (counting the events they receive until
 * none arrived for `quietMs`), then one node advertising `cli.exec`.
 */
export const connectAudience = async (
  url: string,
  token: string,
  handshake: boolean,
  count: number,
  quietMs = 1500
): Promise<Audience> => {
  let events = 0
  let lastEventAt = 0
  const audience: { -readonly [K in keyof Audience]: Audience[K] } = {
    operators: [],
    node: undefined as unknown as WebSocket,
    storm: { connections: count, events: 0, seconds: 0, dropped: 0 },
    arrived: undefined
  }
  const onMessage = (data: WebSocket.RawData) => {
    const text = data.toString()
    if (!isEvent(text)) return
    if (isCapabilityEvent(text)) {
      audience.arrived?.()
      return
    }
    events++
    lastEventAt = performance.now()
  }
  const started = performance.now()
  const opened = await openMany(url, token, handshake, count, { onMessage })
  let seen = -1
  while (seen !== events) {
    seen = events
    await sleep(quietMs)
  }
  audience.operators = opened.filter((ws) => ws.readyState === ws.OPEN)
  audience.storm = {
    connections: count,
    events,
    seconds: (Math.max(lastEventAt, started) - started) / 1000,
    dropped: count - audience.operators.length
  }
  audience.node = await openSocket(url, token, handshake, { role: "node", capabilities: [{ id: "cli.exec" }] })
  await sleep(quietMs) // the node's own announcements
  return audience
}

let round = 0

/** One fan-out round: milliseconds until every open client had the event, or `missed` clients at the timeout. */
export interface FanOutRound {
  readonly ms: number
  readonly missed: number
}

/** One fan-out: milliseconds from the node's `capability.ready` until every operator client has the event. */
export const fanOutOnce = (audience: Audience, timeoutMs = 10_000): Promise<FanOutRound> =>
  new Promise((resolve) => {
    let remaining = audience.operators.filter((ws) => ws.readyState === ws.OPEN).length
    const timer = setTimeout(() => {
      audience.arrived = undefined
      resolve({ ms: Number.NaN, missed: remaining })
    }, timeoutMs)
    const started = performance.now()
    audience.arrived = () => {
      if (--remaining > 0) return
      const elapsed = performance.now() - started
      audience.arrived = undefined
      clearTimeout(timer)
      resolve({ ms: elapsed, missed: 0 })
    }
    audience.node.send(JSON.stringify({
      request_id: `fan-${++round}`,
      type: "capability.ready",
      payload: { capabilities: [{ id: "cli.exec", version: "1.0.0" }] }
    }))
  })
