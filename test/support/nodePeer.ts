/**
 * Nodes for integration tests: a WebSocket node peer that connects, gets its
 * pairing approved over HTTP (`POST /pairings/:id/approve`) and declares
 * capabilities ready, and a `task.execute` responder.
 */
import { eventually } from "./eventually.ts"
import { type GatewayEndpoint, postJson, readJson } from "./gateway.ts"
import { connectPeer, type TestIdentity, type TestPeer } from "./wsPeer.ts"

/** Bearer header for `token`. */
export const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

/** A node peer with its pairing. */
export interface TestNode {
  readonly peer: TestPeer
  readonly identity: TestIdentity
  readonly nodeId: string
  readonly connectionId: string
  readonly pairingId: number
  /** The scoped node token of `pairing.approved` (when approved). */
  readonly scopedToken: string | undefined
}

/**
 * Connects a node (admin token, role node) advertising `advertised`, waits for
 * its pending pairing, approves it with `allowlist` unless `approve` is false,
 * then declares `ready` (capability ids) ready when given.
 */
export const connectNode = async (
  gw: GatewayEndpoint,
  options: {
    readonly advertised?: ReadonlyArray<{ id: string; version?: string }>
    readonly allowlist?: ReadonlyArray<{ id: string; version?: string }>
    readonly ready?: ReadonlyArray<string>
    readonly approve?: boolean
    readonly identity?: TestIdentity
    readonly token?: string
  } = {}
): Promise<TestNode> => {
  const { peer, identity, result } = await connectPeer(gw.url, options.token ?? gw.adminToken, {
    role: "node",
    capabilities: options.advertised ?? [],
    ...(options.identity !== undefined ? { identity: options.identity } : {})
  })
  let pairingId = 0
  await eventually(async () => {
    const body = await readJson(await gw.fetch("/pairings", bearer(gw.adminToken)))
    const pairing = body.pairings?.find((p: any) => p.node.node_id === identity.deviceId)
    pairingId = pairing?.pairing_id ?? 0
    return pairingId > 0
  }, "the node's pairing")
  let scopedToken: string | undefined
  if (options.approve ?? true) {
    const res = await postJson(gw, `/pairings/${pairingId}/approve`, { trust_level: "local", capability_allowlist: options.allowlist ?? [] }, gw.adminToken)
    if (res.status !== 200) throw new Error(`approve: ${res.status} ${await res.text()}`)
    scopedToken = (await peer.next((m) => m.type === "pairing.approved")).payload.scoped_token
  }
  if (options.ready !== undefined) {
    const ready = await peer.request("capability.ready", { capabilities: options.ready.map((id) => ({ id })) })
    if (!ready.ok) throw new Error(`capability.ready: ${JSON.stringify(ready)}`)
  }
  return { peer, identity, nodeId: identity.deviceId, connectionId: result.client_id, pairingId, scopedToken }
}

/**
 * Answers every `task.execute` the peer receives with what `answer` returns
 * (`{ok, result?}` or `{ok:false, error}`; nothing is sent for `undefined`).
 * Returns the requests received so far (live array).
 */
export const serveTasks = (peer: TestPeer, answer: (request: any) => Record<string, unknown> | undefined): Array<any> => {
  const received: Array<any> = []
  peer.ws.on("message", (data) => {
    const m = JSON.parse(data.toString())
    if (m.type !== "task.execute" || "ok" in m || "event_id" in m) return
    received.push(m)
    const a = answer(m)
    if (a !== undefined) peer.send({ request_id: m.request_id, type: m.type, ...a })
  })
  return received
}
