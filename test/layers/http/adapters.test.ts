/**
 * `gatewayHttp(adapter)` (src/app/gateway.ts): the adapter switch really
 * changes what serves HTTP on the gateway's node:http server, and both
 * adapters serve the gateway's routes and leave `upgrade` to `/ws`.
 */
import { Effect, ManagedRuntime } from "effect"
import { describe, expect, it } from "vitest"
import { GatewayLive, type HttpAdapter, StorageMemoryTest } from "../../../src/app/gateway.ts"
import { NodeServer } from "../../../layers/http/NodeServer.ts"
import { HttpServer } from "effect/http"
import { testSettings, TEST_ADMIN_TOKEN } from "../../support/gateway.ts"

const start = async (adapter: HttpAdapter) => {
  const settings = testSettings()
  const runtime = ManagedRuntime.make(GatewayLive(settings, { storage: StorageMemoryTest, adapter }))
  const { server } = await runtime.runPromise(Effect.service(NodeServer))
  const address = await runtime.runPromise(Effect.map(Effect.service(HttpServer.HttpServer), (s) => HttpServer.formatAddress(s.address)))
  return { server, url: address, close: () => runtime.dispose() }
}

describe.each<HttpAdapter>(["lean", "platform-node"])("gatewayHttp(%s)", (adapter) => {
  it("serves the gateway's routes and leaves the upgrade event to /ws", async () => {
    const gw = await start(adapter)
    try {
      // platform-node handles `Expect: 100-continue` itself; the lean adapter lets Node answer it.
      expect(gw.server.listenerCount("checkContinue")).toBe(adapter === "platform-node" ? 1 : 0)
      expect(gw.server.listenerCount("request")).toBe(1)
      expect(gw.server.listenerCount("upgrade")).toBe(1)
      const health = await fetch(gw.url + "/healthz")
      expect(health.status).toBe(200)
      const unauthorized = await fetch(gw.url + "/policy/check", { method: "POST", body: "{}" })
      expect(unauthorized.status).toBe(401)
      const checked = await fetch(gw.url + "/policy/check", {
        method: "POST",
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ spend: { amount_minor_units: 1, currency: "USD" }, pii: { categories: [] }, legal: { flags: [] } })
      })
      expect(checked.status).toBe(200)
      expect(await checked.json()).toMatchObject({ decision: "allow" })
      expect(checked.headers.get("x-request-id")).not.toBeNull()
    } finally {
      await gw.close()
    }
  })
})
