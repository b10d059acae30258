/**
 * `GET /nodes` and `POST /nodes/:node_id/dispatch` (additions to the spec;
 * docs/nodes.md) against a real gateway with real node peers paired over
 * HTTP: the listing, a dispatch and its evidence, and every refusal (not
 * approved, not allowlisted, not ready, not connected, the node's error,
 * disconnect mid-task, timeout on the TestClock), with their statuses.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { TestClock } from "effect/testing"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { bearer, connectNode, serveTasks } from "../support/nodePeer.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

const CLI = { id: "cli.exec", version: "1.0.0" }
const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

const deviceToken = async (gw: TestGateway, scopes: ReadonlyArray<string>) => {
  const identity = makeIdentity()
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role: "client", scopes }, gw.adminToken)
  return (await readJson(res)).token as string
}

const dispatch = (gw: TestGateway, nodeId: string, body: unknown, token = gw.adminToken) =>
  postJson(gw, `/nodes/${nodeId}/dispatch`, body, token)

describe("nodes over HTTP", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 10_000 })
  })
  afterAll(() => gw.close())

  it("GET /nodes lists every node with a pairing record and its live state", async () => {
    const ready = await connectNode(gw, { advertised: [CLI, { id: "desktop.screenshot" }], allowlist: [CLI], ready: ["cli.exec"] })
    const pending = await connectNode(gw, { advertised: [CLI], approve: false })
    const res = await gw.fetch("/nodes", bearer(gw.adminToken))
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(body.status).toBe("ok")
    const byId = new Map(body.nodes.map((n: any) => [n.node_id, n]))
    expect(byId.get(ready.nodeId)).toEqual({
      node_id: ready.nodeId,
      label: "test",
      pairing_id: ready.pairingId,
      pairing_status: "approved",
      trust_level: "local",
      connected: true,
      connections: 1,
      instance_ids: [(await readJson(await gw.fetch("/status", bearer(gw.adminToken)))).instance_id],
      in_flight: 0,
      ready_capabilities: [CLI],
      capability_allowlist: [CLI],
      last_seen_at: expect.any(String)
    })
    expect(byId.get(pending.nodeId)).toMatchObject({ pairing_status: "pending", trust_level: null, connected: true, ready_capabilities: [], capability_allowlist: [] })
    pending.peer.ws.close()
    await eventually(async () => {
      const nodes = (await readJson(await gw.fetch("/nodes", bearer(gw.adminToken)))).nodes
      return nodes.find((n: any) => n.node_id === pending.nodeId)?.connected === false
    }, "the pending node to show as disconnected")
    ready.peer.ws.close()
  })

  it("needs operator.read to list and operator.admin to dispatch", async () => {
    expect((await gw.fetch("/nodes", bearer(await deviceToken(gw, ["operator.read"])))).status).toBe(200)
    expect((await gw.fetch("/nodes", bearer(await deviceToken(gw, ["operator.write"])))).status).toBe(403)
    expect((await gw.fetch("/nodes")).status).toBe(401)
    const body = { capability: "cli.exec", action: {} }
    const reader = await dispatch(gw, "dev_x", body, await deviceToken(gw, ["operator.read", "operator.write"]))
    expect(reader.status).toBe(403)
    const admin = await dispatch(gw, "dev_x", body, await deviceToken(gw, ["operator.admin"]))
    expect(admin.status).toBe(409)
  })

  it("dispatches task.execute to the node and answers {node_id, run_id, step_id, attempt_id, result, evidence}; its evidence reaches operators", async () => {
    const operator = await connectPeer(gw.url, gw.adminToken)
    const node = await connectNode(gw, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    const tasks = serveTasks(node.peer, (m) => {
      // Evidence while running, then the answer.
      node.peer.send({ request_id: `ev-${m.request_id}`, type: "attempt.evidence", payload: { run_id: m.payload.run_id, step_id: m.payload.step_id, attempt_id: m.payload.attempt_id, evidence: { screenshot: "b64" } } })
      return { ok: true, result: { result: { exit_code: 0, echoed: m.payload.action }, evidence: { log: "ran" } } }
    })
    const res = await dispatch(gw, node.nodeId, { capability: "cli.exec", action: { type: "CLI", args: { cmd: "ls" } }, timeout_ms: 5000 })
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(tasks).toHaveLength(1)
    const [task] = tasks
    expect(task.request_id).toMatch(new RegExp(`^task-${UUID}$`))
    expect(task.payload).toEqual({
      run_id: expect.stringMatching(new RegExp(`^dispatch-${UUID}$`)),
      step_id: "0",
      attempt_id: expect.stringMatching(new RegExp(`^${UUID}$`)),
      action: { type: "CLI", args: { cmd: "ls" } }
    })
    expect(body).toEqual({
      node_id: node.nodeId,
      run_id: task.payload.run_id,
      step_id: "0",
      attempt_id: task.payload.attempt_id,
      result: { exit_code: 0, echoed: { type: "CLI", args: { cmd: "ls" } } },
      evidence: { log: "ran" }
    })
    expect(await node.peer.next((m) => m.request_id === `ev-${task.request_id}`)).toMatchObject({ ok: true })
    const event = await operator.peer.next((m) => m.type === "attempt.evidence")
    expect(event).toMatchObject({
      payload: { node_id: node.nodeId, run_id: task.payload.run_id, step_id: "0", attempt_id: task.payload.attempt_id, evidence: { screenshot: "b64" } },
      scope: { kind: "run", run_id: task.payload.run_id }
    })
    operator.peer.ws.close()
    node.peer.ws.close()
  })

  it("refuses with 409 no_eligible_node saying why: not approved, not allowlisted, not ready, not connected", async () => {
    const pending = await connectNode(gw, { advertised: [CLI], approve: false })
    const notAllowed = await connectNode(gw, { advertised: [CLI, { id: "desktop.screenshot" }], allowlist: [{ id: "desktop.screenshot" }], ready: ["cli.exec", "desktop.screenshot"] })
    const notReady = await connectNode(gw, { advertised: [CLI], allowlist: [CLI] })
    const gone = await connectNode(gw, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    gone.peer.ws.close()
    await gone.peer.closed
    await eventually(async () => (await readJson(await gw.fetch("/nodes", bearer(gw.adminToken)))).nodes.find((n: any) => n.node_id === gone.nodeId)?.connected === false, "the node to disconnect")

    const cases = [
      [pending.nodeId, "pairing is pending, not approved"],
      [notAllowed.nodeId, "cli.exec is not in its capability allowlist"],
      [notReady.nodeId, "cli.exec is not ready"]
    ] as const
    for (const [nodeId, reason] of cases) {
      const res = await dispatch(gw, nodeId, { capability: "cli.exec", action: {} })
      expect(res.status).toBe(409)
      expect(await readJson(res)).toEqual({
        error: "no_eligible_node",
        message: `node ${nodeId} cannot run cli.exec: ${reason}`,
        capability: "cli.exec",
        node_id: nodeId,
        refusals: [{ node_id: nodeId, reason }]
      })
    }
    for (const nodeId of [gone.nodeId, "dev_unknown"]) {
      const res = await dispatch(gw, nodeId, { capability: "cli.exec", action: {} })
      expect(res.status).toBe(409)
      expect(await readJson(res)).toMatchObject({ error: "no_eligible_node", message: `node ${nodeId} is not connected`, refusals: [] })
    }
    // The same node can run what it is allowed and has ready.
    serveTasks(notAllowed.peer, () => ({ ok: true }))
    expect((await dispatch(gw, notAllowed.nodeId, { capability: "desktop.screenshot", action: {} })).status).toBe(200)
    for (const n of [pending, notAllowed, notReady]) n.peer.ws.close()
  })

  it("answers 502 node_task_failed with the node's error and evidence", async () => {
    const node = await connectNode(gw, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    serveTasks(node.peer, () => ({ ok: false, error: { code: "tool_failed", message: "exit 2", details: { evidence: { stderr: "boom" } } } }))
    const res = await dispatch(gw, node.nodeId, { capability: "cli.exec", action: {} })
    expect(res.status).toBe(502)
    const body = await readJson(res)
    expect(body).toEqual({
      error: "node_task_failed",
      message: `node ${node.nodeId} reported an error: tool_failed: exit 2`,
      node_id: node.nodeId,
      run_id: expect.stringMatching(/^dispatch-/),
      step_id: "0",
      attempt_id: expect.any(String),
      node_error: { code: "tool_failed", message: "exit 2" },
      evidence: { stderr: "boom" }
    })
    node.peer.ws.close()
  })

  it("answers 502 node_disconnected when the node disconnects mid-task", async () => {
    const node = await connectNode(gw, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    serveTasks(node.peer, () => {
      node.peer.ws.close()
      return undefined
    })
    const res = await dispatch(gw, node.nodeId, { capability: "cli.exec", action: {} })
    expect(res.status).toBe(502)
    expect(await readJson(res)).toMatchObject({ error: "node_disconnected", message: `node ${node.nodeId} disconnected before it answered`, node_id: node.nodeId })
    const listed = (await readJson(await gw.fetch("/nodes", bearer(gw.adminToken)))).nodes.find((n: any) => n.node_id === node.nodeId)
    expect(listed.in_flight).toBe(0)
  })

  it("validates the body: capability, action, timeout_ms 1..600000", async () => {
    for (const body of [
      { capability: "cli.exec", action: {}, timeout_ms: 0 },
      { capability: "cli.exec", action: {}, timeout_ms: 600_001 },
      { capability: "cli.exec", action: {}, timeout_ms: 1.5 },
      { capability: "CLI", action: {} },
      { capability: "cli.exec" },
      { capability: "cli.exec", action: "ls" }
    ]) {
      const res = await dispatch(gw, "dev_x", body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect((await readJson(res)).error).toBe("invalid_request")
    }
  })

  it("documents both routes in the OpenAPI document", async () => {
    const doc = await readJson(await gw.fetch("/openapi.json", bearer(gw.adminToken)))
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/nodes", "/nodes/{node_id}/dispatch"]))
    const responses = doc.paths["/nodes/{node_id}/dispatch"].post.responses
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(["200", "400", "409", "502", "504"]))
  })
})

describe("dispatch timeout (TestClock)", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 10_000 }, undefined, { clock: "test" })
  })
  afterAll(() => gw.close())

  it("answers 504 node_timeout when the node does not answer within timeout_ms", async () => {
    const node = await connectNode(gw, { advertised: [CLI], allowlist: [CLI], ready: ["cli.exec"] })
    const tasks = serveTasks(node.peer, () => undefined)
    const pending = dispatch(gw, node.nodeId, { capability: "cli.exec", action: {}, timeout_ms: 1000 })
    await eventually(() => tasks.length === 1, "the task to reach the node")
    await gw.run(TestClock.adjust(Duration.millis(999)))
    // Still in flight at 999 ms (the exact boundary is checked in test/services/nodes); at 1000 ms it is late.
    const listed = (await readJson(await gw.fetch("/nodes", bearer(gw.adminToken)))).nodes.find((n: any) => n.node_id === node.nodeId)
    expect(listed.in_flight).toBe(1)
    await gw.run(TestClock.adjust(Duration.millis(1)))
    const res = await pending
    expect(res.status).toBe(504)
    expect(await readJson(res)).toMatchObject({
      error: "node_timeout",
      message: `node ${node.nodeId} did not answer within 1s`,
      node_id: node.nodeId,
      timeout_ms: 1000
    })
    node.peer.ws.close()
  })
})
