/**
 * A plugin's declared MCP servers (`contributes.mcp_servers`, issue 26 §2 "from plugin manifests"; docs/plugins.md)
 * attached as agent tool sources: server `fx` of plugin `tools` is `tools_fx`, owned by `plugin:tools`, started in the
 * plugin's directory; its tool `echo` is offered as `mcp_tools_fx_echo` (policy id `mcp.tools_fx.echo`) and a scripted
 * turn calls it through the policy gate. A plugin given up loses its server. With plugins off, nothing of it is
 * attached.
 *
 * Needs the bundle's plugin worker only for plugins with an entry (this one has none).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync, rmSync } from "node:fs"
import { join } from "node:path"
import { agentHome } from "../support/agentHome.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { bundleMcpFixture } from "../support/mcpFixture.ts"
import { manifest, writePlugin } from "../support/pluginHome.ts"

let gw: TestGateway
let off: TestGateway
let fixture: string
let dir: string

beforeAll(async () => {
  fixture = await bundleMcpFixture()
  const home = agentHome([
    "v: 1",
    "tools:",
    "  default: deny",
    "  allow: [mcp.tools_fx.echo]"
  ], {
    scout: [
      "turns:",
      "  - tool_calls: [{name: mcp_tools_fx_echo, arguments: {text: from a plugin's server}}]",
      "    reply: Echoed through the plugin's server."
    ]
  })
  dir = await writePlugin(home, "tools", {
    "plugin.yml": manifest("tools", [
      "contributes:",
      "  mcp_servers:",
      "    - name: fx",
      `      command: ${JSON.stringify(process.execPath)}`,
      `      args: [${JSON.stringify(fixture)}]`,
      "      env: {MCP_FIXTURE_CALLS: calls.txt}"
    ])
  })
  // A plugin whose worker exits 300 ms after each start: given up after three exits, its server is detached.
  await writePlugin(home, "doomed", {
    "plugin.yml": manifest("doomed", [
      "entry: index.mjs",
      "contributes:",
      "  routes: [{name: ok}]",
      "  mcp_servers:",
      "    - name: fx",
      `      command: ${JSON.stringify(process.execPath)}`,
      `      args: [${JSON.stringify(fixture)}]`
    ]),
    "index.mjs": "setTimeout(() => process.exit(2), 300)\nexport default { rpc: { ok: () => ({ ok: true }) } }\n"
  })
  gw = await startGateway({ agentEnabled: true, agentModel: "builtin/scripted", pluginsEnabled: true, home, rateLimitMax: 10_000 })
  off = await startGateway({ agentEnabled: true, agentModel: "builtin/scripted", home, rateLimitMax: 10_000 })
}, 60_000)
afterAll(async () => {
  await gw?.close()
  await off?.close()
  rmSync(fixture, { force: true })
})

const get = (g: TestGateway, path: string) => fetch(`${g.url}${path}`, { headers: { authorization: `Bearer ${g.adminToken}` } }).then(readJson)

describe("a plugin's MCP servers", () => {
  it("are attached as tool sources owned by the plugin, and their tools run from a turn under the policy gate", async () => {
    await eventually(async () => (await get(gw, "/mcp/servers")).servers.some((s: any) => s.name === "tools_fx" && s.status === "ready"), "tools_fx ready")
    const server = (await get(gw, "/mcp/servers")).servers.find((s: any) => s.name === "tools_fx")
    expect(server).toMatchObject({ owner: "plugin:tools", transport: "stdio" })
    expect(server.tools.map((t: any) => [t.name, t.tool_id])).toEqual([["mcp_tools_fx_echo", "mcp.tools_fx.echo"], ["mcp_tools_fx_fail", "mcp.tools_fx.fail"]])
    const status = await get(gw, "/agent/status?agent_id=scout")
    expect(status.tools).toEqual(["mcp_tools_fx_echo"])

    const turn = await readJson(await postJson(gw, "/agent/turn", { agent_id: "scout", channel: "operator", thread_id: "plugin-mcp", message: "Echo" }, gw.adminToken))
    expect(turn).toMatchObject({ reply: "Echoed through the plugin's server.", used_tools: ["mcp_tools_fx_echo"] })
    // The server ran in the plugin's directory (its relative MCP_FIXTURE_CALLS landed there).
    expect(readFileSync(join(dir, "calls.txt"), "utf8")).toBe("from a plugin's server\n")
    const report = (await get(gw, "/context?agent_id=scout")).report
    expect(report.tool_calls).toEqual([{ tool: "mcp_tools_fx_echo", tool_id: "mcp.tools_fx.echo", decision: "allow", outcome: "ok" }])
  })

  it("are detached when their plugin is given up (its contributions withdrawn)", async () => {
    const plugin = async () => (await get(gw, "/plugins")).plugins.find((p: any) => p.id === "doomed")
    await eventually(async () => (await plugin())?.worker.status === "failed", "doomed given up", 30_000)
    await eventually(async () => !(await get(gw, "/mcp/servers")).servers.some((s: any) => s.name === "doomed_fx"), "doomed_fx detached", 15_000)
    // The other plugin's server is untouched.
    expect((await get(gw, "/mcp/servers")).servers.find((s: any) => s.name === "tools_fx")).toMatchObject({ owner: "plugin:tools" })
  }, 60_000)

  it("are not attached when plugins are off", async () => {
    expect((await get(off, "/mcp/servers")).servers).toEqual([])
  })
})
