/**
 * Pairing end to end with the SDK (gateway-api.md "Pairing"; reference §4):
 * the demo node connects on the admin token (its bootstrap credential) and
 * is pending; an operator approves it over HTTP with the allowlist
 * demo.echo; the node stores its scoped token next to its identity,
 * reconnects with it and declares demo.echo ready; a dispatch is echoed
 * (after attempt.evidence); a revocation over WS (the SDK's operator helper)
 * sends it back to pending on its bootstrap token. No token is ever logged
 * or shown to an operator.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  type ConnectedInfo,
  generateDeviceIdentity,
  GatewayClient,
  loadOrCreateDeviceIdentity,
  runDemoNode,
  type WsEventEnvelope
} from "../../src/client/index.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

const getJson = async (path: string) =>
  readJson(await gw.fetch(path, { headers: { authorization: `Bearer ${gw.adminToken}` } }))

const nextConnected = (client: GatewayClient): Promise<ConnectedInfo> =>
  new Promise((resolve) => {
    const off = client.on("connected", (info) => {
      off()
      resolve(info)
    })
  })

describe("node pairing with the SDK and the demo node", () => {
  it("pending → approved (scoped token stored, reconnect, demo.echo ready, dispatch echoed) → revoked (pending again)", async () => {
    const identityPath = join(mkdtempSync(join(tmpdir(), "svc-node-pairing-")), "node.json")
    const tokenPath = `${identityPath}.token`
    const lines: Array<string> = []
    const operator = new GatewayClient({ url: gw.url, token: gw.adminToken, role: "client", identity: generateDeviceIdentity(), reconnect: false })
    const events: Array<WsEventEnvelope> = []
    operator.on("event", (event) => void events.push(event))
    await operator.connect()
    const node = await runDemoNode({ url: gw.url, token: gw.adminToken, identityPath, log: (l) => lines.push(l) })
    try {
      const { device_id } = await loadOrCreateDeviceIdentity(identityPath)

      // 1. Pending on the bootstrap token.
      expect(node.paired).toBe(false)
      expect(lines.at(-1)).toMatch(/^\[node\] pending operator approval/)
      const pending = (await getJson("/pairings?status=pending")).pairings.find(
        (p: { node: { node_id: string } }) => p.node.node_id === device_id
      )
      expect(pending).toMatchObject({ status: "pending", node: { node_id: device_id, capabilities: [{ id: "demo.echo", version: "1.0.0" }] } })
      await eventually(() => events.some((e) => e.type === "pairing.requested"), "pairing.requested to reach the operator")

      // 2. Approved over HTTP: the node stores its scoped token and reconnects with it.
      const reconnected = nextConnected(node)
      const approved = await postJson(
        gw,
        `/pairings/${pending.pairing_id}/approve`,
        { trust_level: "local", capability_allowlist: [{ id: "demo.echo", version: "1.0.0" }] },
        gw.adminToken
      )
      expect(approved.status).toBe(200)
      expect(await reconnected).toMatchObject({ paired: true, reconnected: true, device_id, role: "node" })
      expect(node.paired).toBe(true)
      expect(statSync(tokenPath).mode & 0o777).toBe(0o600)
      const stored = JSON.parse(readFileSync(tokenPath, "utf8")) as { scoped_token: string; device_id: string; pairing_id: number }
      expect(stored).toMatchObject({ device_id, pairing_id: pending.pairing_id })
      expect(stored.scoped_token).toMatch(/^svc-node\.v1\.[A-Za-z0-9_-]+$/)
      const token = stored.scoped_token

      // 3. Ready on the scoped connection, listed by GET /nodes.
      let listed: { ready_capabilities: Array<{ id: string }>; pairing_status: string } | undefined
      await eventually(async () => {
        listed = (await getJson("/nodes")).nodes.find((n: { node_id: string }) => n.node_id === device_id)
        return listed !== undefined && listed.ready_capabilities.length > 0
      }, "GET /nodes to show demo.echo ready")
      expect(listed).toMatchObject({ pairing_status: "approved", ready_capabilities: [{ id: "demo.echo", version: "1.0.0" }] })

      // 4. A dispatch is echoed; the node reported evidence for the attempt first.
      const action = { type: "Echo", args: { text: "hi" } }
      const dispatched = await postJson(gw, `/nodes/${device_id}/dispatch`, { capability: "demo.echo", action }, gw.adminToken)
      expect(dispatched.status).toBe(200)
      const answer = await readJson(dispatched)
      expect(answer).toMatchObject({ node_id: device_id, result: { echoed: { action, run_id: answer.run_id, attempt_id: answer.attempt_id } } })
      await eventually(() => events.some((e) => e.type === "attempt.evidence"), "attempt.evidence to reach the operator")
      expect(events.find((e) => e.type === "attempt.evidence")!.payload).toMatchObject({
        node_id: device_id,
        attempt_id: answer.attempt_id,
        evidence: { echoed_at: expect.any(String) }
      })
      expect(lines.some((l) => l.includes("attempt.evidence failed"))).toBe(false)

      // 5. Revoked over WS with the operator helper: the node forgets the token and is pending again.
      const back = nextConnected(node)
      const revoked = await operator.revokePairing({ pairing_id: pending.pairing_id, reason: "test" })
      expect(revoked.pairing.status).toBe("revoked")
      expect(await back).toMatchObject({ paired: false, reconnected: true })
      expect(existsSync(tokenPath)).toBe(false)
      await eventually(async () => {
        const pairings = (await getJson("/pairings?status=pending")).pairings as Array<{ node: { node_id: string } }>
        return pairings.some((p) => p.node.node_id === device_id)
      }, "the node's pairing to be pending again")
      expect(lines).toContain("[node] scoped token refused (code 4001 pairing revoked); back to the bootstrap token (pending approval again)")
      // The old token no longer opens a connection.
      const stale = new GatewayClient({ url: gw.url, token, role: "node", identity: await loadOrCreateDeviceIdentity(identityPath), reconnect: false })
      const refused = await stale.connect().then(() => undefined, (error: unknown) => error)
      await stale.close()
      expect(refused).toMatchObject({ code: "upgrade_rejected", httpStatus: 401 })

      expect(events.map((e) => e.type)).not.toContain("pairing.approved")
      expect(JSON.stringify(events)).not.toContain(token)
      expect(lines.join("\n")).not.toContain(token)
      expect(lines.join("\n")).not.toContain(gw.adminToken)
    } finally {
      await node.close()
      await operator.close()
    }
  })
})
