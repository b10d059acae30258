/**
 * A plugin cannot block or crash the gateway (issue 26 §1; docs/plugins.md
 * "Isolation"): a handler that throws is a 502 `plugin_failed`; one that
 * never returns is a 504 `plugin_timeout` and its worker is restarted; a
 * worker that exits is reported (`plugin.lifecycle` failed, restarting) and
 * started again; one that keeps dying is given up (its contributions
 * withdrawn, listed as failed); an entry that does not load or lacks a
 * handler is a load error. The gateway answers throughout.
 *
 * Needs the bundle's plugin worker (`dist/cli/plugin-worker.mjs`; `npm test` builds it).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { eventually } from "../support/eventually.ts"
import { StorageMemoryTest } from "../../layers/storage/Storage.ts"
import { postJson, readJson, startGateway, type StructuredLog, type TestGateway } from "../support/gateway.ts"
import { manifest, writePlugin } from "../support/pluginHome.ts"
import { connectPeer, type TestPeer } from "../support/wsPeer.ts"

let gw: TestGateway
let peer: TestPeer
const lifecycle: Array<any> = []
const logs: Array<StructuredLog> = []

const routes = (names: ReadonlyArray<string>) => ["entry: index.mjs", "contributes:", `  routes: [${names.map((n) => `{name: ${n}}`).join(", ")}]`]

beforeAll(async () => {
  const home = mkdtempSync(join(tmpdir(), "svc-plugin-worker-"))
  await writePlugin(home, "crashy", {
    "plugin.yml": manifest("crashy", routes(["ok", "fail", "hang", "crash"])),
    "index.mjs": [
      "console.log('crashy starting')",
      "console.error('a warning of crashy')",
      "export default { rpc: {",
      "  ok: () => ({ ok: true }),",
      "  fail: () => { throw new Error('no such thing') },",
      "  hang: () => { for (;;) {} },",
      "  crash: () => { process.exit(3) }",
      "} }",
      ""
    ].join("\n")
  })
  // Dies shortly after every start: given up after three exits in a row.
  await writePlugin(home, "doomed", {
    "plugin.yml": manifest("doomed", routes(["ok"])),
    "index.mjs": "setTimeout(() => process.exit(2), 300)\nexport default { rpc: { ok: () => ({ ok: true }) } }\n"
  })
  // Exits while it loads: a load error of its own, never the gateway's start.
  await writePlugin(home, "diesatload", {
    "plugin.yml": manifest("diesatload", routes(["ok"])),
    "index.mjs": "setImmediate(() => process.exit(4))\nexport default { rpc: { ok: () => ({ ok: true }) } }\n"
  })
  await writePlugin(home, "badentry", { "plugin.yml": manifest("badentry", routes(["ok"])), "index.mjs": "export default {{\n" })
  await writePlugin(home, "missing", {
    "plugin.yml": manifest("missing", ["entry: index.mjs", "contributes:", "  tools: [{name: t, description: A tool}]"]),
    "index.mjs": "export default { tools: {} }\n"
  })
  gw = await startGateway({ pluginsEnabled: true, pluginCallTimeoutMs: 500, home, rateLimitMax: 10_000 }, StorageMemoryTest, { logs })
  peer = (await connectPeer(gw.url, gw.adminToken)).peer
  peer.ws.on("message", (data) => {
    const message = JSON.parse(String(data))
    if (message.type === "plugin.lifecycle") lifecycle.push(message.payload)
  })
})
afterAll(async () => {
  peer?.ws.close()
  await gw?.close()
})

const call = (id: string, name: string) => postJson(gw, `/plugins/${id}/rpc/${name}`, {}, gw.adminToken)
const plugin = async (id: string) => (await readJson(await gw.fetch(`/plugins/${id}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }))).plugin
const answersOk = async (id: string) => (await call(id, "ok")).status === 200

describe("a plugin's worker", () => {
  it("reports an entry that does not load, or lacks a handler, as a load error", async () => {
    const listed = await readJson(await gw.fetch("/plugins", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    const errors = Object.fromEntries(listed.errors.map((e: any) => [e.plugin_id, e]))
    expect(errors.badentry).toMatchObject({ error: "load_failed", message: expect.stringMatching(/^the entry did not load: /) })
    expect(errors.missing).toMatchObject({ error: "load_failed", message: "the entry exports no handler for tool t" })
    // A worker that exits while it loads is that plugin's load error; the gateway started all the same.
    expect(errors.diesatload).toMatchObject({ error: "load_failed", message: expect.stringMatching(/^the entry did not load: /) })
    expect(listed.plugins.map((p: any) => p.id)).toContain("crashy")
  })

  it("logs what a plugin prints as `plugin output` lines, apart from the gateway's own output", async () => {
    await eventually(() => logs.filter((l) => l.message === "plugin output").length >= 2, "the plugin's output")
    const lines = logs.filter((l) => l.message === "plugin output").map((l) => l.annotations)
    expect(lines).toContainEqual({ plugin_id: "crashy", stream: "stdout", line: "crashy starting" })
    expect(lines).toContainEqual({ plugin_id: "crashy", stream: "stderr", line: "a warning of crashy" })
  })

  it("answers a handler's failure as 502 plugin_failed", async () => {
    const res = await call("crashy", "fail")
    expect(res.status).toBe(502)
    expect(await readJson(res)).toEqual({ error: "plugin_failed", message: "no such thing" })
  })

  it("ends a hung call at the deadline (504), restarts the worker and answers again", async () => {
    const res = await call("crashy", "hang")
    expect(res.status).toBe(504)
    expect(await readJson(res)).toMatchObject({ error: "plugin_timeout" })
    await eventually(() => lifecycle.some((e) => e.plugin_id === "crashy" && e.state === "failed" && e.restarting === true), "the failure event")
    await eventually(() => answersOk("crashy"), "the restarted worker")
    expect((await plugin("crashy")).worker).toMatchObject({ status: "running", restarts: 1 })
    expect(lifecycle.filter((e) => e.plugin_id === "crashy").map((e) => e.state)).toEqual(["failed", "loaded"])
  })

  it("reports a worker that exits and starts it again", async () => {
    const res = await call("crashy", "crash")
    expect(res.status).toBe(503)
    expect(await readJson(res)).toMatchObject({ error: "plugin_unavailable" })
    await eventually(() => answersOk("crashy"), "the restarted worker")
    expect((await plugin("crashy")).worker).toMatchObject({ status: "running", restarts: 2, last_error: "the worker exited with code 3" })
  })

  it("gives up on a worker that keeps dying: contributions withdrawn, listed as failed", async () => {
    await eventually(async () => (await plugin("doomed")).worker.status === "failed", "doomed given up", 20_000)
    expect((await plugin("doomed")).worker).toMatchObject({ restarts: 3, last_error: expect.stringMatching(/3 failures in a row/) })
    expect(lifecycle.filter((e) => e.plugin_id === "doomed").at(-1)).toMatchObject({ state: "failed", restarting: false })
    const res = await call("doomed", "ok")
    expect(res.status).toBe(503)
    const listed = await readJson(await gw.fetch("/plugins", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(listed.errors.find((e: any) => e.plugin_id === "doomed")).toMatchObject({ error: "load_failed" })
    // The gateway itself never stopped answering.
    expect((await gw.fetch("/healthz")).status).toBe(200)
  }, 30_000)
})
