/**
 * Plugins as a new user meets them (issue 26 §1 "Done when"; docs/plugins.md):
 * the example plugin dropped into `$SVC_HOME/plugins` and locked is listed
 * by `GET /plugins` with its contributions, permissions and integrity; a
 * scripted agent turn calls its tool, which the policy bundle escalates
 * (`plugin.echo.*` → require_approval), and the approved call runs in the
 * plugin's worker (`plugin_tool.invoked`); its command joins
 * `command.execute` and `/help`; its RPC route answers by the manifest's
 * scope. Directories that must not load are listed under `errors`.
 * With plugins off every `/plugins*` route is 404.
 *
 * Needs the bundle's plugin worker (`dist/cli/plugin-worker.mjs`; `npm test` builds it).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { agentHome } from "../support/agentHome.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { installEcho, manifest, writePlugin } from "../support/pluginHome.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

let gw: TestGateway
let off: TestGateway
let home: string

beforeAll(async () => {
  home = agentHome([
    "v: 1",
    "tools:",
    "  default: allow",
    "  require_approval: [plugin.echo.*]",
    "network_egress:",
    "  default: allow"
  ], {
    scout: [
      "turns:",
      "  - tool_calls: [{name: plugin_echo_echo, arguments: {text: hello}}]",
      "    reply: Asking the echo plugin.",
      "  - reply: The plugin echoed hello."
    ]
  })
  installEcho(home)
  await writePlugin(home, "broken", { "plugin.yml": manifest("broken", ["entry: index.mjs", "colour: blue"]) }, { locked: false })
  await writePlugin(home, "unpinned", { "plugin.yml": manifest("unpinned") }, { locked: false })
  const changed = await writePlugin(home, "changed", { "plugin.yml": manifest("changed"), "data.txt": "one" })
  writeFileSync(join(changed, "data.txt"), "two")
  const open = await writePlugin(home, "open", { "plugin.yml": manifest("open") })
  chmodSync(open, 0o777)
  gw = await startGateway({ agentEnabled: true, agentModel: "builtin/scripted", pluginsEnabled: true, home, rateLimitMax: 10_000 })
  off = await startGateway({ home })
})
afterAll(async () => {
  chmodSync(join(home, "plugins", "open"), 0o755)
  await gw?.close()
  await off?.close()
})

const get = (g: TestGateway, path: string, token = g.adminToken) =>
  g.fetch(path, { headers: token === "" ? {} : { authorization: `Bearer ${token}` } })
const deviceToken = async (scopes: ReadonlyArray<string>) =>
  (await readJson(await postJson(gw, "/auth/device-tokens/issue", { device_id: makeIdentity().deviceId, role: "client", scopes }, gw.adminToken)))
    .token as string

describe("GET /plugins", () => {
  it("lists the example plugin with its contributions, permissions, lock and integrity, and every refused directory", async () => {
    const listed = await readJson(await get(gw, "/plugins"))
    expect(listed.status).toBe("ok")
    expect(listed.plugins.map((p: any) => p.id)).toEqual(["echo"])
    const echo = listed.plugins[0]
    expect(echo).toMatchObject({
      name: "Echo",
      version: "1.0.0",
      entry: "index.mjs",
      contributions: {
        tools: [{ name: "echo", tool_name: "plugin_echo_echo", tool_id: "plugin.echo.echo", secrets: [] }],
        commands: [{ name: "shout", help: "Repeats the text in capitals" }],
        routes: [{ name: "ping", path: "/plugins/echo/rpc/ping", scope: "operator.read" }],
        mcp_servers: []
      },
      permissions: { tools: [], network_egress: [], secrets: [], db: false },
      install: { source: "examples/plugins/echo", pinned_version: "1.0.0" },
      integrity: { state: "verified", integrity_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      worker: { status: "running", restarts: 0 },
      source_dir: join(home, "plugins", "echo")
    })
    expect(Date.parse(echo.loaded_at)).not.toBeNaN()
    const errors = Object.fromEntries(listed.errors.map((e: any) => [e.source_dir.split("/").pop(), e]))
    expect(errors.broken).toMatchObject({ error: "invalid_manifest", file: join(home, "plugins", "broken", "plugin.yml"), line: 6 })
    expect(errors.unpinned).toMatchObject({ error: "unlocked", plugin_id: "unpinned" })
    expect(errors.changed).toMatchObject({ error: "integrity_mismatch", plugin_id: "changed" })
    expect(errors.open).toMatchObject({ error: "unsafe_directory", message: expect.stringMatching(/world-writable/) })

    expect(await readJson(await get(gw, "/plugins/echo"))).toEqual({ status: "ok", plugin: echo })
    const missing = await get(gw, "/plugins/changed")
    expect(missing.status).toBe(404)
    expect(await readJson(missing)).toMatchObject({ error: "not_found" })
  })

  it("needs operator.admin", async () => {
    expect((await get(gw, "/plugins", "")).status).toBe(401)
    expect((await get(gw, "/plugins", await deviceToken(["operator.read"]))).status).toBe(403)
    expect((await get(gw, "/plugins", await deviceToken(["operator.admin"]))).status).toBe(200)
  })

  it("answers 404 for every plugin route while plugins are off, after authentication", async () => {
    for (const path of ["/plugins", "/plugins/echo", "/plugins/echo/rpc/ping"]) {
      const res = await get(off, path)
      expect(res.status).toBe(404)
      expect(await readJson(res)).toMatchObject({ error: "not_found" })
      expect((await get(off, path, "")).status).toBe(401)
    }
  })
})

describe("the plugin's tool under the policy gate", () => {
  it("is escalated by the bundle, runs in the worker once approved, and is announced", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const turn = (message: string) =>
      postJson(gw, "/agent/turn", { agent_id: "scout", channel: "operator", thread_id: "plugins", message }, gw.adminToken).then(readJson)
    const waiting = await turn("Echo hello")
    expect(waiting.used_tools).toEqual(["plugin_echo_echo"])
    expect(waiting.reply).toMatch(/Waiting for an operator to approve plugin_echo_echo/)
    const pending = (await readJson(await get(gw, "/approvals"))).approvals.filter((a: any) => a.kind === "tool_call")
    expect(pending).toHaveLength(1)
    expect(pending[0].context.tool_call).toMatchObject({ tool: "plugin_echo_echo", tool_id: "plugin.echo.echo", arguments: { text: "hello" } })
    expect((await postJson(gw, `/approvals/${pending[0].id}/respond`, { decision: "approved" }, gw.adminToken)).status).toBe(200)

    const invoked = peer.next((m) => m.type === "plugin_tool.invoked", 10_000)
    const after = await turn("What did it say?")
    expect(after.reply).toBe("The plugin echoed hello.")
    expect((await invoked).payload).toMatchObject({
      plugin_id: "echo",
      tool: "plugin_echo_echo",
      tool_id: "plugin.echo.echo",
      agent_id: "scout",
      outcome: "ok"
    })
    const report = (await readJson(await get(gw, "/context?agent_id=scout"))).report
    expect(report.tool_calls).toEqual([{ tool: "plugin_echo_echo", tool_id: "plugin.echo.echo", decision: "approved", outcome: "ok" }])
    const status = await readJson(await get(gw, "/agent/status?agent_id=scout"))
    expect(JSON.stringify(status)).toContain("plugin:echo")
    peer.ws.close()
  })

  it("adds its command to command.execute and /help", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const shout = await peer.request("command.execute", { command: "/shout hello there" })
    expect(shout.result).toMatchObject({ output: "HELLO THERE" })
    const help = await peer.request("command.execute", { command: "/help" })
    expect(help.result.output).toContain("shout")
    peer.ws.close()
  })
})

describe("the plugin's RPC route /plugins/echo/rpc/*", () => {
  it("answers the handler's JSON to a token with the manifest's scope, and refuses others", async () => {
    const read = await deviceToken(["operator.read"])
    const ping = await postJson(gw, "/plugins/echo/rpc/ping", { n: 1 }, read)
    expect(ping.status).toBe(200)
    expect(await readJson(ping)).toEqual({ pong: true, plugin: "echo", input: { n: 1 } })
    expect(await readJson(await get(gw, "/plugins/echo/rpc/ping?q=x", read))).toEqual({ pong: true, plugin: "echo", input: { q: "x" } })
    expect((await postJson(gw, "/plugins/echo/rpc/ping", { n: 1 })).status).toBe(401)
    const write = await postJson(gw, "/plugins/echo/rpc/ping", {}, await deviceToken(["operator.write"]))
    expect(write.status).toBe(403)
    expect(await readJson(write)).toMatchObject({ error: "forbidden", message: expect.stringMatching(/requires operator.read/) })
    const unknown = await postJson(gw, "/plugins/echo/rpc/nope", {}, gw.adminToken)
    expect(unknown.status).toBe(404)
    expect((await postJson(gw, "/plugins/ghost/rpc/ping", {}, gw.adminToken)).status).toBe(404)
    const malformed = await postJson(gw, "/plugins/echo/rpc/ping", "{not json", gw.adminToken)
    expect(malformed.status).toBe(400)
    expect(await readJson(malformed)).toMatchObject({ error: "invalid_request" })
  })
})
