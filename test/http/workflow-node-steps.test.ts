/**
 * Workflow steps run on a real node (issue 12 §5): a real gateway with
 * SVC_ENGINE_API_ENABLED=1 and a node paired over HTTP and connected over
 * WebSocket (`ws`). A `Node` step and a `Web` step with an explicit
 * capability reach the node as `task.execute` and their attempts hold its
 * results; the node's error fails the attempt (`node_task_failed`); an
 * idempotent step is retried on the node; a non-idempotent one pauses for a
 * `retry` approval; no eligible node fails the attempt `node_unavailable`;
 * a `Web` step without `args.capability` goes to a node declaring the
 * default `svc.playwright`. The artifacts a node attaches through
 * `attempt.evidence` are listed in the attempt's record and served through
 * the run (with the run's policy snapshot). Node steps are gated as
 * `tool.node.dispatch`: with `$SVC_HOME/policy.yml` allowing it they run
 * straight through, without it the run pauses for a `policy` approval.
 * SQLite, and PostgreSQL when SVC_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { postgres, type TestDatabaseServices } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { bearer, connectNode, serveTasks, type TestNode } from "../support/nodePeer.ts"
import { StorageMemoryTest } from "../../src/app/gateway.ts"

const KEY = "agent:default:main"
const SETTLED = ["succeeded", "failed", "cancelled"]

/** Lets node steps run without a policy pause. */
const ALLOW_NODE_DISPATCH = "v: 1\ntools:\n  allow: [tool.node.dispatch]\n"

const databases: ReadonlyArray<{ name: string; storage: () => Layer.Layer<TestDatabaseServices, unknown> }> = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

/** A gateway with the engine API on; `policy` is written to `$SVC_HOME/policy.yml` first when given. */
const gatewayWith = (storage: Layer.Layer<TestDatabaseServices, unknown>, policy?: string) => {
  const home = mkdtempSync(join(tmpdir(), "svc-node-steps-"))
  if (policy !== undefined) writeFileSync(join(home, "policy.yml"), policy)
  return startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, home }, storage)
}

/** Helpers bound to one gateway. */
const client = (gw: () => TestGateway) => {
  const get = async (path: string) => {
    const res = await gw().fetch(path, bearer(gw().adminToken))
    return { status: res.status, body: await readJson(res) }
  }
  const post = async (path: string, body: unknown) => {
    const res = await postJson(gw(), path, body, gw().adminToken)
    return { status: res.status, body: await readJson(res) }
  }
  const detail = async (run_id: string) => (await get(`/workflow/runs/${run_id}`)).body
  /** Starts a run of `steps`; returns its run id. */
  const start = async (steps: ReadonlyArray<unknown>): Promise<string> => {
    const started = await post("/workflow/run", { key: KEY, steps })
    expect(started.status, JSON.stringify(started.body)).toBe(200)
    return started.body.run_id
  }
  /** Waits until the run's status is `status` (or it settled otherwise: then the assertion shows the record). */
  const until = async (run_id: string, status: string) => {
    let last: any
    await eventually(async () => {
      last = await detail(run_id)
      return last.run?.status === status || SETTLED.includes(last.run?.status)
    }, `run ${run_id} ${status}`, 30_000)
    expect(last.run.status, JSON.stringify(last)).toBe(status)
    return last
  }
  /** The pending approvals of `run_id`. */
  const pendingFor = async (run_id: string): Promise<Array<any>> =>
    (await get("/approvals?status=pending")).body.approvals.filter((a: any) => a.scope?.run_id === run_id)
  return { get, post, detail, start, until, pendingFor }
}

/** Connects a node allowed and ready to run `capabilities`. */
const nodeFor = (gw: TestGateway, capabilities: ReadonlyArray<string>): Promise<TestNode> =>
  connectNode(gw, {
    advertised: capabilities.map((id) => ({ id })),
    allowlist: capabilities.map((id) => ({ id })),
    ready: capabilities
  })

for (const database of databases) {
  describe(`node steps with tool.node.dispatch allowed (${database.name})`, () => {
    let gw: TestGateway
    const api = client(() => gw)
    const nodes: Array<TestNode> = []
    const connect = async (capabilities: ReadonlyArray<string>) => {
      const node = await nodeFor(gw, capabilities)
      nodes.push(node)
      return node
    }
    beforeAll(async () => {
      gw = await gatewayWith(database.storage(), ALLOW_NODE_DISPATCH)
    })
    afterAll(async () => {
      for (const node of nodes) node.peer.ws.close()
      await gw?.close()
    })

    it("a node's attempt.evidence attachments are listed in the attempt's record and served through the run", async () => {
      const node = await connect(["steps.shoot"])
      node.peer.ws.on("message", (data) => {
        const m = JSON.parse(data.toString())
        if (m.type !== "task.execute" || "ok" in m || "event_id" in m) return
        const { run_id, step_id, attempt_id } = m.payload
        void node.peer.request("attempt.evidence", {
          run_id,
          step_id,
          attempt_id,
          evidence: { attachments: [{ kind: "screenshot", mime_type: "image/png", bytes_base64: Buffer.from("shot").toString("base64") }] }
        }).then((ack) => node.peer.send({ request_id: m.request_id, type: m.type, ok: true, result: { result: { ack: ack.ok } } }))
      })
      const run_id = await api.start([{ type: "Node", args: { capability: "steps.shoot" }, max_attempts: 1 }])
      const record = await api.until(run_id, "succeeded")
      const attempt = record.steps[0].attempts[0]
      expect(attempt.result).toEqual({ ack: true })
      expect(attempt.artifacts).toEqual([expect.objectContaining({ kind: "screenshot", mime_type: "image/png", size_bytes: 4 })])
      const artifact_id = attempt.artifacts[0].artifact_id
      const bytes = await gw.fetch(`/runs/${run_id}/artifacts/${artifact_id}`, bearer(gw.adminToken))
      expect(bytes.status).toBe(200)
      expect(bytes.headers.get("content-type")).toBe("image/png")
      expect(await bytes.text()).toBe("shot")
      const meta = await api.get(`/runs/${run_id}/artifacts/${artifact_id}/metadata`)
      expect(meta.body.scope).toMatchObject({ run_id, attempt_id: attempt.attempt_id, agent_id: "default", policy_snapshot_id: expect.any(String) })
      expect(meta.body.scope.policy_snapshot_id).toBe(record.run.policy_snapshot_id)
    })

    it("runs a Node step and a Web step (explicit capability) on the node; the attempts hold its results", async () => {
      const node = await connect(["steps.echo", "browser.playwright"])
      const tasks = serveTasks(node.peer, (m) => ({
        ok: true,
        result: { result: { echoed: m.payload.action, n: tasks.length }, evidence: { log: "ran" } }
      }))
      const run_id = await api.start([
        { type: "Node", args: { capability: "steps.echo", text: "hello" }, max_attempts: 1 },
        { type: "Web", args: { capability: "browser.playwright", url: "https://example.test/" }, max_attempts: 1 }
      ])
      const record = await api.until(run_id, "succeeded")

      expect(tasks).toHaveLength(2)
      expect(tasks.map((t) => t.type)).toEqual(["task.execute", "task.execute"])
      expect(tasks[0].payload).toEqual({
        run_id,
        step_id: record.steps[0].step_id,
        attempt_id: `${run_id}:0:1`,
        action: { type: "Node", args: { capability: "steps.echo", text: "hello" } }
      })
      expect(tasks[1].payload).toMatchObject({
        run_id,
        attempt_id: `${run_id}:1:1`,
        action: { type: "Web", args: { capability: "browser.playwright", url: "https://example.test/" } }
      })

      expect(record.steps.map((s: any) => s.status)).toEqual(["succeeded", "succeeded"])
      for (const [i, step] of record.steps.entries()) {
        expect(step.attempts).toHaveLength(1)
        expect(step.attempts[0]).toMatchObject({
          attempt_id: tasks[i].payload.attempt_id,
          attempt: 1,
          status: "succeeded",
          error: null,
          result: { echoed: tasks[i].payload.action, n: i + 1 }
        })
      }
    })

    it("fails the attempt with node_task_failed and the node's error; max_attempts 1 fails the run", async () => {
      const node = await connect(["steps.fail"])
      const tasks = serveTasks(node.peer, () => ({ ok: false, error: { code: "tool_failed", message: "exit 2" } }))
      const run_id = await api.start([
        { type: "Node", args: { capability: "steps.fail" }, max_attempts: 1 },
        { type: "Node", args: { capability: "steps.fail" }, max_attempts: 1 }
      ])
      const record = await api.until(run_id, "failed")
      expect(tasks).toHaveLength(1)
      expect(record.steps.map((s: any) => s.status)).toEqual(["failed", "skipped"])
      const [attempt] = record.steps[0].attempts
      expect(record.steps[0].attempts).toHaveLength(1)
      expect(attempt).toMatchObject({
        attempt_id: tasks[0].payload.attempt_id,
        status: "failed",
        error: { code: "node_task_failed", message: `node ${node.nodeId} reported an error: tool_failed: exit 2` },
        result: { node_id: node.nodeId, node_error: { code: "tool_failed", message: "exit 2" } }
      })
      expect(record.steps[1].attempts).toEqual([])
    })

    it("retries an idempotent node step on the node (idempotency_key, max_attempts 2): fails once, then succeeds", async () => {
      const node = await connect(["steps.flaky"])
      const tasks = serveTasks(node.peer, () =>
        tasks.length === 1
          ? { ok: false, error: { code: "busy", message: "try again" } }
          : { ok: true, result: { result: { done: true } } })
      const run_id = await api.start([
        { type: "Node", args: { capability: "steps.flaky" }, idempotency_key: `flaky-${Date.now()}`, max_attempts: 2 }
      ])
      const record = await api.until(run_id, "succeeded")
      expect(tasks.map((t) => t.payload.attempt_id)).toEqual([`${run_id}:0:1`, `${run_id}:0:2`])
      expect(tasks[1].payload.action).toEqual(tasks[0].payload.action)
      const attempts = record.steps[0].attempts
      expect(attempts.map((a: any) => [a.attempt, a.status])).toEqual([[1, "failed"], [2, "succeeded"]])
      expect(attempts[0].error).toMatchObject({ code: "node_task_failed" })
      expect(attempts[1].result).toEqual({ done: true })
      expect(record.steps[0].status).toBe("succeeded")
    })

    it("pauses a non-idempotent node step after a failure for a retry approval; approving runs it again on the node", async () => {
      const node = await connect(["steps.once"])
      const tasks = serveTasks(node.peer, () =>
        tasks.length === 1
          ? { ok: false, error: { code: "busy", message: "try again" } }
          : { ok: true, result: { result: { done: true } } })
      const run_id = await api.start([{ type: "Node", args: { capability: "steps.once" }, max_attempts: 2 }])
      const paused = await api.until(run_id, "paused")
      expect(paused.run.paused_reason).toBe("retry")
      expect(tasks).toHaveLength(1)
      const pending = await api.pendingFor(run_id)
      expect(pending.map((a) => a.kind)).toEqual(["retry"])
      expect((await api.post(`/approvals/${pending[0].id}/respond`, { decision: "approved" })).status).toBe(200)
      const record = await api.until(run_id, "succeeded")
      expect(tasks).toHaveLength(2)
      expect(record.steps[0].attempts.map((a: any) => a.status)).toEqual(["failed", "succeeded"])
    })

    it("fails the attempt with node_unavailable when no node may run the capability", async () => {
      // A connected node that lacks the capability is named in the refusal.
      const other = await connect(["steps.other"])
      const run_id = await api.start([{ type: "Node", args: { capability: "steps.absent" }, max_attempts: 1 }])
      const record = await api.until(run_id, "failed")
      const [attempt] = record.steps[0].attempts
      expect(attempt.status).toBe("failed")
      expect(attempt.error.code).toBe("node_unavailable")
      expect(attempt.error.message).toMatch(/^no eligible node for steps\.absent: /)
      expect(attempt.error.message).toContain(`${other.nodeId} steps.absent is not in its capability allowlist`)
    })

    it("sends a Web step without args.capability to a node declaring the default svc.playwright", async () => {
      const node = await connect(["svc.playwright"])
      const tasks = serveTasks(node.peer, () => ({ ok: true, result: { result: { shot: "done" } } }))
      const run_id = await api.start([{ type: "Web", args: { url: "https://example.test/" }, max_attempts: 1 }])
      const record = await api.until(run_id, "succeeded")
      expect(tasks).toHaveLength(1)
      expect(tasks[0].payload).toMatchObject({ run_id, step_id: record.steps[0].step_id, action: { type: "Web" } })
      expect(record.steps[0].attempts[0].result).toEqual({ shot: "done" })
    })

    it("fails a Node step without args.capability with invalid_action; nothing is dispatched", async () => {
      const run_id = await api.start([{ type: "Node", args: {}, max_attempts: 1 }])
      const record = await api.until(run_id, "failed")
      expect(record.steps[0].attempts[0].error.code).toBe("invalid_action")
    })
  })

  describe(`node steps without a policy file (${database.name})`, () => {
    let gw: TestGateway
    let node: TestNode | undefined
    const api = client(() => gw)
    beforeAll(async () => {
      gw = await gatewayWith(database.storage())
    })
    afterAll(async () => {
      node?.peer.ws.close()
      await gw?.close()
    })

    it("pauses the run for a policy approval; approving it sends the task to the node and the run succeeds", async () => {
      node = await nodeFor(gw, ["steps.gated"])
      const tasks = serveTasks(node.peer, () => ({ ok: true, result: { result: { gated: "ran" } } }))
      const run_id = await api.start([{ type: "Node", args: { capability: "steps.gated" }, max_attempts: 1 }])
      const paused = await api.until(run_id, "paused")
      expect(paused.run.paused_reason).toBe("policy")
      expect(tasks).toHaveLength(0)
      const pending = await api.pendingFor(run_id)
      expect(pending).toHaveLength(1)
      expect(pending[0]).toMatchObject({ kind: "policy", status: "pending", scope: { run_id, step_index: 0 } })
      expect(JSON.stringify(pending[0].context)).toContain("tool.node.dispatch")

      const res = await api.post(`/approvals/${pending[0].id}/respond`, { decision: "approved" })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const record = await api.until(run_id, "succeeded")
      expect(tasks).toHaveLength(1)
      expect(tasks[0].payload.action).toEqual({ type: "Node", args: { capability: "steps.gated" } })
      expect(record.steps[0].attempts.at(-1)).toMatchObject({ status: "succeeded", result: { gated: "ran" } })
    })
  })
}
