/**
 * The client SDK against the real gateway: every credential transport, typed
 * requests, events, the (unpaired) demo node answering a gateway-initiated
 * task.execute, and the error a device token with too few scopes gets.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { eventually } from "../support/eventually.ts"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConnectionRegistry } from "../../services/ws-sessions/ConnectionRegistry.ts"
import { GatewayRequests } from "../../services/ws-sessions/GatewayRequests.ts"
import { generateDeviceIdentity, GatewayClient, GatewayRequestError, runDemoNode } from "../../src/client/index.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

describe("GatewayClient against the gateway", () => {
  it.each(["bearer", "subprotocol", "cookie"] as const)("connects with %s credentials and makes typed requests", async (credentials) => {
    const client = new GatewayClient({ url: gw.url, token: gw.adminToken, credentials, role: "client", identity: generateDeviceIdentity(), reconnect: false })
    const session = await client.connect()
    expect(session.role).toBe("client")
    await client.request("ping")
    const { entry } = await client.request("presence.beacon", { host: "sdk-test", mode: "test" })
    expect(entry.host).toBe("sdk-test")
    await client.close()
  })

  it("receives events and surfaces ok:false as GatewayRequestError", async () => {
    const identity = generateDeviceIdentity()
    const issued = await readJson(await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.device_id, role: "client", scopes: ["operator.read"] }, gw.adminToken))
    const operator = new GatewayClient({ url: gw.url, token: issued.token, role: "client", identity, reconnect: false })
    await operator.connect()
    const seen = new Promise<{ type: string }>((resolve) => operator.on("event", (e) => e.type === "presence.upserted" && resolve(e)))
    const other = new GatewayClient({ url: gw.url, token: gw.adminToken, role: "client", identity: generateDeviceIdentity(), reconnect: false })
    await other.connect()
    expect((await seen).type).toBe("presence.upserted")
    const error = await operator.request("approval.list", {}).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GatewayRequestError)
    expect((error as GatewayRequestError).code).toBe("forbidden")
    await operator.close()
    await other.close()
  })

  it("runs the demo node: on its bootstrap token it advertises demo.echo, waits for approval, and answers task.execute", async () => {
    const lines: Array<string> = []
    const node = await runDemoNode({ url: gw.url, token: gw.adminToken, identityPath: join(mkdtempSync(join(tmpdir(), "svc-node-")), "id.json"), log: (l) => lines.push(l) })
    try {
      let connection: { connectionId: string; capabilities: ReadonlyArray<{ id: string }>; readyCapabilities: ReadonlySet<string> } | undefined
      await eventually(async () => {
        connection = await gw.run(Effect.map(ConnectionRegistry, (r) => r.all().find((c) => c.role === "node")))
        return connection !== undefined
      }, "the demo node to connect")
      expect(connection!.capabilities.map((c) => c.id)).toEqual(["demo.echo"])
      // Not paired: pending operator approval, nothing declared ready (test/ws/node-pairing-sdk.test.ts pairs it).
      expect([...connection!.readyCapabilities]).toEqual([])
      expect(lines.at(-1)).toMatch(/^\[node\] pending operator approval/)
      const answer = await gw.run(Effect.flatMap(GatewayRequests, (r) => r.request(connection!.connectionId, "task.execute", { action: "hello" })))
      expect(answer).toEqual({ result: { echoed: { action: "hello" } } })
    } finally {
      await node.close()
    }
  })
})
