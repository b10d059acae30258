/**
 * The agent's `workflow_run` tool (issue 25 §2 "Tools"): a scripted turn
 * starts a durable run of ActionPrimitives under the agent's key; the run is
 * the gateway's own (the one engine: its Http step reaches the target once
 * and the run succeeds), and the policy gate applies to the tool
 * (`tool.workflow.run`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { eventually } from "../support/eventually.ts"
import { agentHome } from "../support/agentHome.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

let gw: TestGateway
let target: http.Server
const hits: Array<string> = []

beforeAll(async () => {
  target = http.createServer((req, res) => {
    hits.push(req.url ?? "")
    res.writeHead(200, { "content-type": "text/plain" })
    res.end("ok")
  })
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}/ping`
  const home = agentHome([
    "v: 1",
    "tools:",
    "  allow: [tool.workflow.run, tool.http.fetch]",
    "network_egress:",
    "  allow: [\"http://127.0.0.1:*\"]",
  ], {
    runner: [
      "turns:",
      `  - tool_calls: [{name: workflow_run, arguments: {steps: [{type: Http, args: {method: GET, url: "${url}"}}]}}]`,
      "    reply: Started the run.",
    ]
  })
  gw = await startGateway({ agentEnabled: true, agentModel: "builtin/scripted", engineApiEnabled: true, home, rateLimitMax: 10_000 })
})
afterAll(async () => {
  await gw.close()
  await new Promise<void>((resolve) => target.close(() => resolve()))
})

const get = (path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }).then(readJson)

describe("the workflow_run tool", () => {
  it("starts a durable run under the agent's key that the gateway's engine runs once", async () => {
    const turn = await readJson(await postJson(gw, "/agent/turn", { agent_id: "runner", channel: "operator", thread_id: "w", message: "Ping it" }, gw.adminToken))
    expect(turn).toMatchObject({ reply: "Started the run.", used_tools: ["workflow_run"] })
    const report = (await get("/context?agent_id=runner")).report
    expect(report.tool_calls).toEqual([{ tool: "workflow_run", tool_id: "tool.workflow.run", decision: "allow", outcome: "ok" }])
    const runs = (await get(`/workflow/runs?key=${encodeURIComponent("agent:runner:main")}`)).runs
    expect(runs).toHaveLength(1)
    const runId = runs[0].run_id
    await eventually(async () => (await get(`/workflow/runs/${runId}`)).run.status === "succeeded", "run succeeded", 30_000)
    expect(hits).toEqual(["/ping"])
  })
})
