/**
 * Paired nodes' ready capabilities as agent tools (issue 25 §2 "Tools": `node_<capability>` through NodeDispatch),
 * black-box with the scripted provider: a node declaring `steps.echo` ready makes `node_steps_echo` an offered tool
 * (GET /agent/status, the context report); a call is gated as `tool.node.dispatch` on the capability (here the bundle
 * asks for approval: nothing reaches the node until an operator approves, then the next turn runs it on the node and
 * feeds the node's result to the model); when the node goes, the tool goes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { agentHome } from "../support/agentHome.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectNode, serveTasks } from "../support/nodePeer.ts"

let gw: TestGateway

beforeAll(async () => {
  const home = agentHome([
    "v: 1",
    "tools:",
    "  default: deny",
    "  require_approval: [tool.node.dispatch]"
  ], {
    ops: [
      "turns:",
      "  - tool_calls: [{name: node_steps_echo, arguments: {args: {text: hello}}}]",
      "    reply: Asked the node.",
      "  - reply: The node echoed hello.",
      "  - tool_calls: [{name: node_steps_echo, arguments: {args: {text: again}}}]",
      "    reply: Tried the node again."
    ]
  })
  gw = await startGateway({ agentEnabled: true, agentModel: "builtin/scripted", home, rateLimitMax: 10_000 })
})
afterAll(async () => {
  await gw.close()
})

const turn = (message: string) =>
  postJson(gw, "/agent/turn", { agent_id: "ops", channel: "operator", thread_id: "nodes", message }, gw.adminToken).then(readJson)
const get = (path: string) => fetch(`${gw.url}${path}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }).then(readJson)

describe("node capabilities as agent tools", () => {
  it("offers a ready capability, gates its calls, runs the approved call on the node, and withdraws it when the node goes", async () => {
    expect((await get("/agent/status?agent_id=ops")).tools).not.toContain("node_steps_echo")
    const node = await connectNode(gw, { advertised: [{ id: "steps.echo" }], allowlist: [{ id: "steps.echo" }], ready: ["steps.echo"] })
    const tasks = serveTasks(node.peer, (m) => ({ ok: true, result: { result: { echoed: m.payload.action.args.text } } }))
    expect((await get("/agent/status?agent_id=ops")).tools).toEqual(["node_steps_echo"])

    const first = await turn("Ask the node to echo hello")
    expect(first.used_tools).toEqual(["node_steps_echo"])
    expect(first.reply).toMatch(/Waiting for an operator to approve node_steps_echo on "steps\.echo" \(approval \d+\)/)
    expect(tasks).toEqual([])
    const [approval] = (await get("/approvals")).approvals.filter((a: any) => a.kind === "tool_call")
    expect(approval.context.tool_call).toMatchObject({ tool: "node_steps_echo", tool_id: "tool.node.dispatch", match_target: "steps.echo" })
    expect((await postJson(gw, `/approvals/${approval.id}/respond`, { decision: "approved" }, gw.adminToken)).status).toBe(200)

    const second = await turn("What did it say?")
    expect(second.reply).toBe("The node echoed hello.")
    expect(tasks).toHaveLength(1)
    expect(tasks[0].payload.action).toEqual({ type: "Node", args: { text: "hello", capability: "steps.echo" } })
    const report = (await get("/context?agent_id=ops")).report
    expect(report.selected_tools).toEqual(["node_steps_echo"])
    expect(report.tool_calls).toEqual([{ tool: "node_steps_echo", tool_id: "tool.node.dispatch", decision: "approved", outcome: "ok" }])
    const resolved = report.system_prompt.sections.find((s: any) => s.id === "resolved_tool_calls")
    expect(resolved).toBeDefined()

    node.peer.ws.close()
    await eventually(async () => !(await get("/agent/status?agent_id=ops")).tools.includes("node_steps_echo"), "the tool withdrawn")
    const third = await turn("Try again")
    expect(third.reply, JSON.stringify(third)).toBe("Tried the node again.")
    const last = (await get("/context?agent_id=ops")).report
    expect(last.selected_tools).toEqual([])
    expect(last.tool_calls).toEqual([{ tool: "node_steps_echo", tool_id: "tool.node.dispatch", decision: "deny", outcome: "not_offered" }])
  })
})
