/**
 * The agent's tools under the policy gate, black-box with the scripted
 * provider (issue 25 §2 "Tools", §8): an allowed tool runs (memory written
 * and found by `memory.search`), a denied one is a `policy_denied` failure
 * the model sees, an escalated one becomes a `tool_call` approval and the
 * turn ends saying what waits; once approved, the next turn runs the call and
 * feeds its result to the model; the context report lists the tools offered
 * and the calls made.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { agentHome } from "../support/agentHome.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

let gw: TestGateway
let target: http.Server
let targetUrl: string
const fetched: Array<string> = []

beforeAll(async () => {
  target = http.createServer((req, res) => {
    fetched.push(req.url ?? "")
    res.writeHead(200, { "content-type": "text/plain" })
    res.end("the status page says: all green")
  })
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve))
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/status`
  const home = agentHome([
    "v: 1",
    "tools:",
    "  default: require_approval",
    "  allow: [tool.memory.search, tool.memory.write]",
    "  require_approval: [tool.http.fetch]",
    "  deny: [tool.work.write]",
    "network_egress:",
    "  default: allow",
  ], {
    scout: [
      "turns:",
      "  - tool_calls: [{name: memory_create, arguments: {title: Favourite colour, body_md: The operator likes blue.}}]",
      "    reply: Noted.",
      "  - tool_calls: [{name: work_create, arguments: {title: Paint the fence}}]",
      "    reply: I could not create that work item.",
      `  - tool_calls: [{name: http_fetch, arguments: {url: "${targetUrl}"}}]`,
      "    reply: Fetching.",
      "  - reply: The status page is green.",
    ]
  })
  gw = await startGateway({ agentEnabled: true, agentModel: "builtin/scripted", home, rateLimitMax: 10_000 })
})
afterAll(async () => {
  await gw.close()
  await new Promise<void>((resolve) => target.close(() => resolve()))
})

const turn = (message: string) =>
  postJson(gw, "/agent/turn", { agent_id: "scout", channel: "operator", thread_id: "tools", message }, gw.adminToken).then(readJson)
const get = (path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }).then(readJson)

describe("agent tools under the policy gate", () => {
  it("runs allowed tools, refuses denied ones, escalates to an approval and feeds the approved result to the next turn", async () => {
    const first = await turn("Remember that I like blue")
    expect(first).toMatchObject({ reply: "Noted.", used_tools: ["memory_create"], memory_written: true })
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const found = await peer.request("memory.search", { query: "blue", filter: { agent_id: "scout" } })
    expect(found.result.hits).toHaveLength(1)
    peer.ws.close()
    const firstReport = (await get("/context?agent_id=scout")).report
    expect(firstReport.selected_tools).toEqual(["memory_search", "memory_create", "http_fetch", "workflow_run"])
    expect(firstReport.tool_schema_total_chars).toBeGreaterThan(0)
    expect(firstReport.tool_calls).toEqual([{ tool: "memory_create", tool_id: "tool.memory.write", decision: "allow", outcome: "ok" }])

    const denied = await turn("Create a work item to paint the fence")
    expect(denied.reply).toBe("I could not create that work item.")
    // work_create is not even offered (tool.work.write is denied outright); the scripted call is refused all the same.
    const deniedReport = (await get("/context?agent_id=scout")).report
    expect(deniedReport.tool_calls).toEqual([{ tool: "work_create", tool_id: "tool.work.write", decision: "deny", outcome: "not_offered" }])
    expect(deniedReport.selected_tools).not.toContain("work_create")

    const waiting = await turn("Check the status page")
    expect(waiting.used_tools).toEqual(["http_fetch"])
    expect(waiting.reply).toMatch(/Waiting for an operator to approve http_fetch on ".*\/status" \(approval \d+\)/)
    expect(fetched).toEqual([])
    const pending = (await get("/approvals")).approvals.filter((a: any) => a.kind === "tool_call")
    expect(pending).toHaveLength(1)
    expect(pending[0].context.tool_call).toMatchObject({ tool: "http_fetch", tool_id: "tool.http.fetch", match_target: targetUrl })
    const respond = await postJson(gw, `/approvals/${pending[0].id}/respond`, { decision: "approved" }, gw.adminToken)
    expect(respond.status).toBe(200)

    const after = await turn("What did the page say?")
    expect(after.reply).toBe("The status page is green.")
    expect(fetched).toEqual(["/status"])
    const report = (await get("/context?agent_id=scout")).report
    expect(report.tool_calls).toEqual([{ tool: "http_fetch", tool_id: "tool.http.fetch", decision: "approved", outcome: "ok" }])
    expect(report.system_prompt.sections.map((s: any) => s.id)).toContain("resolved_tool_calls")
    // Settled once: a further turn does not run it again.
    await turn("Anything else?")
    expect(fetched).toEqual(["/status"])
  })
})
