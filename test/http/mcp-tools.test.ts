/**
 * MCP servers as the agent's tool sources, black-box (issue 26 §2 and "Done when"; docs/mcp.md): a gateway whose
 * `mcp.yml` names a stdio server (the fixture process, test/fixtures/mcp/stdioServer.ts), an HTTP server (the same
 * tools served in this process with `McpServer.layerHttp`) and a server the policy denies outright. A scripted agent
 * turn calls `mcp_fx_echo` and the server's answer is the tool result in the session; `mcp.fx.fail` needs an approval
 * and runs once approved; `mcp.blocked.*` is not offered; `GET /mcp/servers` and `GET /agent/status` show the health;
 * the fixture killed: `failed`, its tools gone from the offered list, and back after the backoff.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer, ManagedRuntime } from "effect"
import { McpProtocol, McpServer } from "effect/ai"
import { HttpRouter, HttpServer } from "effect/http"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AgentRepo } from "../../services/agent/AgentRepo.ts"
import { FixtureRegistrations } from "../fixtures/mcp/tools.ts"
import { agentHome } from "../support/agentHome.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { bundleMcpFixture } from "../support/mcpFixture.ts"

let gw: TestGateway
let fixture: string
let work: string
let web: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
const pidFile = () => join(work, "fx.pid")
const callsFile = () => join(work, "fx.calls")

beforeAll(async () => {
  fixture = await bundleMcpFixture()
  work = mkdtempSync(join(tmpdir(), "svc-mcp-tools-"))
  web = ManagedRuntime.make(
    HttpRouter.serve(
      McpServer.layerHttp({ name: "web", version: "1.0.0", path: "/mcp", protocols: [McpProtocol.v2025_11_25], registrations: FixtureRegistrations }),
      { disableLogger: true, disableListenLog: true }
    ).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))
  )
  const webUrl = `${HttpServer.formatAddress((await web.runPromise(Effect.service(HttpServer.HttpServer))).address)}/mcp`
  const home = agentHome([
    "v: 1",
    "tools:",
    "  default: require_approval",
    "  allow: [mcp.fx.echo, mcp.web.*]",
    "  require_approval: [mcp.fx.fail]",
    "  deny: [mcp.blocked.*]"
  ], {
    scout: [
      "turns:",
      "  - tool_calls: [{name: mcp_fx_echo, arguments: {text: hello from the agent}}]",
      "    reply: Echoed.",
      "  - tool_calls: [{name: mcp_fx_fail}]",
      "    reply: Failing.",
      "  - reply: Settled.",
      "  - tool_calls: [{name: mcp_blocked_echo, arguments: {text: never}}]",
      "    reply: Blocked.",
      "  - tool_calls: [{name: mcp_web_echo, arguments: {text: over http}}]",
      "    reply: Web echoed."
    ]
  })
  writeFileSync(join(home, "mcp.yml"), [
    "servers:",
    "  fx:",
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(fixture)}]`,
    `    env: {MCP_FIXTURE_PID: ${JSON.stringify(pidFile())}, MCP_FIXTURE_CALLS: ${JSON.stringify(callsFile())}}`,
    "  blocked:",
    `    command: ${JSON.stringify(process.execPath)}`,
    `    args: [${JSON.stringify(fixture)}]`,
    "  web:",
    `    url: ${webUrl}?token=not-shown`,
    ""
  ].join("\n"))
  gw = await startGateway({ agentEnabled: true, agentModel: "builtin/scripted", home, rateLimitMax: 10_000 })
}, 60_000)
afterAll(async () => {
  await gw?.close()
  await web?.dispose()
  rmSync(work, { recursive: true, force: true })
  rmSync(fixture, { force: true })
})

const get = (path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }).then(readJson)
const turn = (message: string) =>
  postJson(gw, "/agent/turn", { agent_id: "scout", channel: "operator", thread_id: "mcp", message }, gw.adminToken).then(readJson)
/** The session's stored messages (the agent's repository over the gateway's database). */
const historyOf = (sessionId: string) =>
  gw.run(Effect.flatMap(Effect.service(AgentRepo), (repo) => repo.history(sessionId)).pipe(Effect.provide(AgentRepo.layer)))
const serverNamed = async (name: string) => (await get("/mcp/servers")).servers.find((s: any) => s.name === name)
const allReady = async () => {
  const { servers } = await get("/mcp/servers")
  return servers.length === 3 && servers.every((s: any) => s.status === "ready")
}

describe("MCP servers as tool sources", () => {
  it("lists the servers with their tools and health", async () => {
    await eventually(allReady, "the three servers ready")
    const listed = await get("/mcp/servers")
    expect(listed.errors).toEqual([])
    expect(listed.servers.map((s: any) => [s.name, s.owner, s.transport])).toEqual([
      ["blocked", "mcp.yml", "stdio"],
      ["fx", "mcp.yml", "stdio"],
      ["web", "mcp.yml", "http"]
    ])
    const fx = listed.servers[1]
    expect(fx.target).toBe(process.execPath)
    expect(fx.tools).toEqual([
      { name: "mcp_fx_echo", tool_id: "mcp.fx.echo", description: expect.stringContaining("echo") },
      { name: "mcp_fx_fail", tool_id: "mcp.fx.fail", description: "Always fails." }
    ])
    // The URL's query (a token may sit there) is not shown.
    expect(listed.servers[2].target).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    const status = await get("/agent/status?agent_id=scout")
    expect(status.tool_sources).toEqual(expect.arrayContaining([
      expect.objectContaining({ source: "mcp:fx", status: "ready", tools: 2, ready_at: expect.any(String) })
    ]))
    // Offered: the bundle denies mcp.blocked.* outright.
    expect(status.tools).toEqual(expect.arrayContaining(["mcp_fx_echo", "mcp_fx_fail", "mcp_web_echo"]))
    expect(status.tools).not.toContain("mcp_blocked_echo")
  })

  it("calls a server's tool from a scripted turn, under the policy gate", async () => {
    await eventually(allReady, "the three servers ready")
    const first = await turn("Echo something")
    expect(first).toMatchObject({ reply: "Echoed.", used_tools: ["mcp_fx_echo"] })
    expect(readFileSync(callsFile(), "utf8")).toBe("hello from the agent\n")
    const history = await historyOf(first.session_id)
    const toolMessage = history.find((row) => row.role === "tool")
    expect(toolMessage?.message).toContain("echo: hello from the agent")
    const report = (await get("/context?agent_id=scout")).report
    expect(report.tool_calls).toEqual([{ tool: "mcp_fx_echo", tool_id: "mcp.fx.echo", decision: "allow", outcome: "ok" }])
    expect(report.mcp_servers).toEqual(["blocked", "fx", "web"])

    const waiting = await turn("Now fail")
    expect(waiting.reply).toMatch(/Waiting for an operator to approve mcp_fx_fail on "\{\}" \(approval \d+\)/)
    const pending = (await get("/approvals")).approvals.filter((a: any) => a.kind === "tool_call")
    expect(pending).toHaveLength(1)
    expect(pending[0].context.tool_call).toMatchObject({ tool: "mcp_fx_fail", tool_id: "mcp.fx.fail", match_target: "{}" })
    expect((await postJson(gw, `/approvals/${pending[0].id}/respond`, { decision: "approved" }, gw.adminToken)).status).toBe(200)
    const settled = await turn("And then?")
    expect(settled.reply).toBe("Settled.")
    expect((await get("/context?agent_id=scout")).report.tool_calls).toEqual([
      { tool: "mcp_fx_fail", tool_id: "mcp.fx.fail", decision: "approved", outcome: "tool_failed" }
    ])

    const blocked = await turn("Try the blocked one")
    expect(blocked.reply).toBe("Blocked.")
    expect((await get("/context?agent_id=scout")).report.tool_calls).toEqual([
      { tool: "mcp_blocked_echo", tool_id: "mcp.blocked.echo", decision: "deny", outcome: "not_offered" }
    ])

    const overHttp = await turn("Echo over HTTP")
    expect(overHttp).toMatchObject({ reply: "Web echoed.", used_tools: ["mcp_web_echo"] })
    const webHistory = await historyOf(first.session_id)
    expect(webHistory.filter((row) => row.role === "tool").at(-1)?.message).toContain("echo: over http")
  })

  it("reports a killed server as failed, withdraws its tools and brings it back", async () => {
    await eventually(allReady, "the three servers ready")
    process.kill(Number(readFileSync(pidFile(), "utf8")), "SIGKILL")
    await eventually(async () => (await serverNamed("fx")).status === "failed", "fx failed")
    const down = await serverNamed("fx")
    expect(down).toMatchObject({ status: "failed", tools: [], failures: 1, retry_at: expect.any(String), last_error: expect.any(String) })
    const status = await get("/agent/status?agent_id=scout")
    expect(status.tools).not.toContain("mcp_fx_echo")
    expect(status.tool_sources.find((s: any) => s.source === "mcp:fx")).toMatchObject({ status: "failed", tools: 0 })
    // The first retry is 1 s after the failure.
    await eventually(async () => (await serverNamed("fx")).status === "ready", "fx back")
    expect((await get("/agent/status?agent_id=scout")).tools).toContain("mcp_fx_echo")
  })
})

describe("GET /mcp/servers access", () => {
  it("needs operator.read, and answers 404 with the agent runtime off (mcp.yml not read)", async () => {
    const issue = async (target: TestGateway, scopes: ReadonlyArray<string>) =>
      (await readJson(await postJson(target, "/auth/device-tokens/issue", { device_id: `mcp-${scopes.join("-") || "none"}`, role: "client", scopes }, target.adminToken))).token as string
    const reader = await issue(gw, ["operator.read"])
    const writer = await issue(gw, ["operator.write"])
    const as = (token: string) => gw.fetch("/mcp/servers", { headers: { authorization: `Bearer ${token}` } })
    expect((await as(reader)).status).toBe(200)
    expect((await as(writer)).status).toBe(403)
    expect((await gw.fetch("/mcp/servers")).status).toBe(401)

    const home = mkdtempSync(join(tmpdir(), "svc-mcp-off-"))
    writeFileSync(join(home, "mcp.yml"), "servers:\n  fx: {command: node}\n")
    const off = await startGateway({ home })
    try {
      const res = await off.fetch("/mcp/servers", { headers: { authorization: `Bearer ${off.adminToken}` } })
      expect(res.status).toBe(404)
      expect((await readJson(res)).error).toBe("not_found")
    } finally {
      await off.close()
      rmSync(home, { recursive: true, force: true })
    }
  })
})
