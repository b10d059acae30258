/**
 * Three real gateway processes on one fresh PostgreSQL schema act as one gateway (issue 27 §4; docs/scaling.md):
 * `node dist/cli/main.mjs serve` ×3 with `SVC_CLUSTER=1`, the same admin token, cluster secret and master key
 * (test/support/cluster.ts). Each scenario spreads its calls over the instances A, B and C:
 * - an operator on A resolves an approval raised by a plan on B; a client on C receives the events;
 * - a node connected (and paired) on C executes a step of a run started on A, and of a run started on an edge
 *   instance (`SVC_ROLE=edge`, a fourth process started for it: it executes no step itself);
 * - a signed webhook delivery accepted by B is refused as a replay by C and by A (nonces are shared);
 * - a periodic watcher fires at most once per slot, whichever instance runs its ticker;
 * - concurrent moves into `doing` sent to A, B and C race for the last WIP slot: one wins;
 * - failed authentications sent to all three instances count against one limit: the next is 429 everywhere.
 * Needs SVC_TEST_DATABASE_URL and the bundle (`node scripts/bundle.mjs`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { randomUUID } from "node:crypto"
import { nonceDigest, signWebhook } from "../../services/watchers/webhook/signature.ts"
import {
  type Cluster,
  type ClusterInstance,
  clusterOutput,
  connectOperator,
  connectReadyNode,
  startCluster
} from "../support/cluster.ts"
import { postgresUrl } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { serveTasks } from "../support/nodePeer.ts"
import type { TestPeer } from "../support/wsPeer.ts"

/** Node steps run without a policy pause. */
const POLICY = "v: 1\ntools:\n  allow: [tool.node.dispatch]\n"
/** Failed authentications per window (the window is long enough not to drain during the test). */
const RATE_LIMIT_MAX = 6
/** Generous: three processes share two cores with the other tests. */
const DEADLINE_MS = 45_000

describe.skipIf(postgresUrl === undefined)("three gateway processes on one PostgreSQL database", () => {
  let cluster: Cluster
  let a: ClusterInstance
  let b: ClusterInstance
  let c: ClusterInstance
  const peers: Array<TestPeer> = []
  const operator = async (on: ClusterInstance) => {
    const peer = await connectOperator(on)
    peers.push(peer)
    return peer
  }
  /** `eventually` with the instances' output in the failure message. */
  const waitFor = async (check: () => boolean | Promise<boolean>, what: string) => {
    try {
      await eventually(check, what, DEADLINE_MS)
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${clusterOutput(cluster)}`)
    }
  }

  beforeAll(async () => {
    cluster = await startCluster({
      instances: 3,
      postgresUrl: postgresUrl!,
      policy: POLICY,
      env: { SVC_AUTH_RATE_LIMIT_MAX: String(RATE_LIMIT_MAX), SVC_AUTH_RATE_LIMIT_WINDOW_S: "3600" }
    })
    ;[a, b, c] = cluster.instances
  }, 180_000)
  afterAll(async () => {
    for (const peer of peers) peer.ws.close()
    await cluster?.close()
  }, 60_000)

  it("an operator on A resolves an approval raised by a plan on B; a client on C receives the events", async () => {
    const onA = await operator(a)
    const onC = await operator(c)
    // Both operators are listed on B before the plan is raised there (the directory crosses instances).
    await waitFor(async () => {
      const listed = (await b.call("GET", "/connections")).body.connections ?? []
      return listed.length >= 2
    }, "B to list the operators of A and C")

    const planned = await b.call("POST", "/plan", {
      request_id: `cluster-${randomUUID()}`,
      trigger: { channel: "web", thread_id: "t-cluster", message: { text: "Buy the conference ticket" } },
      tags: ["spend:25000:USD:Conf_Inc", "pii:none", "legal:none"]
    })
    expect(planned.status, JSON.stringify(planned.body)).toBe(200)
    expect(planned.body.status).toBe("escalate")
    const id: number = planned.body.escalation.approval_id

    const requested = await onC.next((m) => m.type === "approval.requested" && m.payload?.approval?.id === id, DEADLINE_MS)
    expect(requested.payload.approval).toMatchObject({ status: "pending", plan_id: planned.body.plan_id })
    // B asks A's operator (a gateway-initiated request crossing instances); A's operator decides.
    const ask = await onA.next((m) => m.type === "approval.request" && m.request_id === `approval-${id}`, DEADLINE_MS)
    expect(ask.payload).toMatchObject({ approval_id: id, plan_id: planned.body.plan_id })
    onA.send({ request_id: `approval-${id}`, type: "approval.request", ok: true, result: { approved: true, reason: "budgeted" } })

    const resolved = await onC.next((m) => m.type === "approval.resolved" && m.payload?.approval?.id === id, DEADLINE_MS)
    expect(resolved.payload.approval).toMatchObject({ status: "approved", resolution: { decision: "approved", reason: "budgeted" } })
    // Every instance reads the one decision.
    for (const instance of [a, b, c]) {
      expect((await instance.call("GET", `/approvals/${id}`)).body.approval).toMatchObject({ id, status: "approved" })
    }
  }, 90_000)

  it("a node connected to C executes a step of a run started on A", async () => {
    const node = await connectReadyNode(c, ["steps.echo"])
    peers.push(node.peer)
    const tasks = serveTasks(node.peer, (m) => ({ ok: true, result: { result: { echoed: m.payload.action.args.text } } }))
    // A knows the node through the directory before the run asks for it.
    await waitFor(async () => {
      const listed = (await a.call("GET", "/connections")).body.connections ?? []
      return listed.some((entry: any) => entry.device_id === node.nodeId || entry.connection_id === node.connectionId)
    }, "A to list the node connected to C")

    const started = await a.call("POST", "/workflow/run", {
      key: "agent:default:main",
      steps: [{ type: "Node", args: { capability: "steps.echo", text: "across" }, max_attempts: 1 }]
    })
    expect(started.status, JSON.stringify(started.body)).toBe(200)
    const runId: string = started.body.run_id
    let detail: any
    await waitFor(async () => {
      detail = (await a.call("GET", `/workflow/runs/${runId}`)).body
      return ["succeeded", "failed", "cancelled"].includes(detail.run?.status)
    }, `run ${runId} to settle`)
    expect(detail.run.status, JSON.stringify(detail)).toBe("succeeded")
    expect(tasks).toHaveLength(1)
    expect(tasks[0].payload).toMatchObject({ run_id: runId, action: { type: "Node", args: { capability: "steps.echo" } } })
    expect(detail.steps[0].attempts).toEqual([expect.objectContaining({ status: "succeeded", result: { echoed: "across" } })])
  }, 90_000)

  it("a node connected to C sends evidence with an attachment for steps dispatched by any instance; each attempt lists it", async () => {
    const node = await connectReadyNode(c, ["steps.shot"])
    peers.push(node.peer)
    // Before answering each task the node sends attempt.evidence: it reaches C, whichever runner dispatched the task.
    const evidenceAnswers: Array<any> = []
    node.peer.ws.on("message", async (data) => {
      const m = JSON.parse(data.toString())
      if (m.type !== "task.execute" || "ok" in m || "event_id" in m) return
      const { run_id, step_id, attempt_id } = m.payload
      evidenceAnswers.push(await node.peer.request("attempt.evidence", {
        run_id,
        step_id,
        attempt_id,
        evidence: { attachments: [{ kind: "screenshot", mime_type: "image/png", bytes_base64: Buffer.from(`shot ${run_id}`).toString("base64") }] }
      }))
      node.peer.send({ request_id: m.request_id, type: m.type, ok: true, result: { result: { shot: true } } })
    })
    await waitFor(async () => {
      const listed = (await a.call("GET", "/connections")).body.connections ?? []
      return listed.some((entry: any) => entry.connection_id === node.connectionId)
    }, "A to list the node connected to C")
    // Four runs on four lanes: their shards (and so the dispatching runner) spread over the instances.
    const runIds: Array<string> = []
    for (const [i, instance] of [a, b, c, a].entries()) {
      const started = await instance.call("POST", "/workflow/run", {
        key: `agent:shot-${i}:main`,
        steps: [{ type: "Node", args: { capability: "steps.shot" }, max_attempts: 1 }]
      })
      expect(started.status, JSON.stringify(started.body)).toBe(200)
      runIds.push(started.body.run_id)
    }
    for (const runId of runIds) {
      let detail: any
      await waitFor(async () => {
        detail = (await b.call("GET", `/workflow/runs/${runId}`)).body
        return ["succeeded", "failed", "cancelled"].includes(detail.run?.status)
      }, `run ${runId} to settle`)
      expect(detail.run.status, JSON.stringify(detail)).toBe("succeeded")
      expect(detail.steps[0].attempts[0].artifacts).toEqual([
        expect.objectContaining({ kind: "screenshot", mime_type: "image/png", size_bytes: `shot ${runId}`.length })
      ])
    }
    expect(evidenceAnswers.map((answer) => answer.ok)).toEqual([true, true, true, true])
  }, 90_000)

  it("a run started on a fourth instance, an edge, is executed by the runners; its node step reaches the node on C", async () => {
    const edge = await cluster.add({ SVC_ROLE: "edge" })
    try {
      const node = await connectReadyNode(c, ["steps.edge"])
      peers.push(node.peer)
      const tasks = serveTasks(node.peer, () => ({ ok: true, result: { result: { from: "C" } } }))
      await waitFor(async () => {
        const listed = (await edge.call("GET", "/connections")).body.connections ?? []
        return listed.some((entry: any) => entry.connection_id === node.connectionId)
      }, "the edge to list the node connected to C")
      const started = await edge.call("POST", "/workflow/run", {
        key: "agent:edge:main",
        steps: [{ type: "Node", args: { capability: "steps.edge" }, max_attempts: 1 }]
      })
      expect(started.status, JSON.stringify(started.body)).toBe(200)
      const runId: string = started.body.run_id
      let detail: any
      await waitFor(async () => {
        detail = (await edge.call("GET", `/workflow/runs/${runId}`)).body
        return ["succeeded", "failed", "cancelled"].includes(detail.run?.status)
      }, `run ${runId} started on the edge to settle`)
      expect(detail.run.status, JSON.stringify(detail)).toBe("succeeded")
      expect(tasks.map((t) => t.payload.run_id)).toEqual([runId])
      expect(detail.steps[0].attempts).toEqual([expect.objectContaining({ status: "succeeded", result: { from: "C" } })])
    } finally {
      await edge.stop()
    }
  }, 90_000)

  it("a signed webhook delivery accepted by B is refused as a replay by C and by A", async () => {
    const secret = `whsec-${randomUUID()}`
    const stored = await a.call("POST", "/secrets", { scope: "webhook:cluster", value: secret })
    expect(stored.status, JSON.stringify(stored.body)).toBe(201)
    const watcher = await a.call("POST", "/watchers", {
      plan_id: "plan-cluster-hook",
      trigger_type: "webhook",
      trigger_config: { secret_handle: stored.body.handle.handle_id }
    })
    expect(watcher.status, JSON.stringify(watcher.body)).toBe(201)
    const id: number = watcher.body.id

    const body = JSON.stringify({ event: "deploy", sha: "abc123" })
    const timestamp = String(Date.now())
    const nonce = randomUUID()
    const headers = {
      authorization: `Bearer ${a.adminToken}`,
      "content-type": "application/json",
      "x-svc-webhook-timestamp": timestamp,
      "x-svc-webhook-nonce": nonce,
      "x-svc-webhook-signature": signWebhook(secret, timestamp, nonce, body)
    }
    const deliver = async (to: ClusterInstance) => {
      const res = await to.fetch(`/watchers/${id}/trigger/webhook`, { method: "POST", headers, body })
      return { status: res.status, body: (await res.json()) as any }
    }
    const accepted = await deliver(b)
    expect(accepted, JSON.stringify(accepted)).toMatchObject({ status: 200, body: { ok: true, firing_id: expect.any(String) } })
    const replay = { error: "replay_detected", message: "webhook nonce has already been processed" }
    expect(await deliver(c)).toEqual({ status: 409, body: replay })
    expect(await deliver(a)).toEqual({ status: 409, body: replay })
    const firings = (await c.call("GET", `/watchers/${id}/firings`)).body.firings
    expect(firings).toHaveLength(1)
    expect(firings[0]).toMatchObject({ firing_id: accepted.body.firing_id, nonce_digest: nonceDigest(nonce) })
  }, 60_000)

  it("a periodic watcher created on B fires at most once per slot across the three instances", async () => {
    const interval = 2_000
    const created = await b.call("POST", "/watchers", {
      plan_id: "plan-cluster-periodic",
      trigger_type: "periodic",
      trigger_config: { interval_ms: interval }
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const id: number = created.body.id
    let firings: Array<any> = []
    await waitFor(async () => {
      firings = (await a.call("GET", `/watchers/${id}/firings?limit=500`)).body.firings ?? []
      return firings.length >= 4
    }, "four periodic firings")
    const paused = await c.call("PATCH", `/watchers/${id}`, { active: false })
    expect(paused.status, JSON.stringify(paused.body)).toBe(200)
    firings = (await a.call("GET", `/watchers/${id}/firings?limit=500`)).body.firings
    const slots = firings.map((f: any) => Number(f.slot))
    expect(new Set(slots).size, JSON.stringify(firings)).toBe(slots.length)
    for (const slot of slots) expect(slot % interval).toBe(0)
  }, 90_000)

  it("concurrent moves into doing sent to A, B and C race for the last WIP slot: exactly one wins", async () => {
    const scope = { tenant_id: "t1", agent_id: "default", workspace_id: `ws-${randomUUID()}` }
    const [onA, onB, onC] = [await operator(a), await operator(b), await operator(c)]
    const create = async (peer: TestPeer, title: string) => {
      const created = await peer.request("work.create", { ...scope, item: { kind: "action", title } })
      expect(created.ok, JSON.stringify(created)).toBe(true)
      return created.result.item.work_item_id as string
    }
    const move = (peer: TestPeer, work_item_id: string, status: string) => peer.request("work.transition", { ...scope, work_item_id, status })
    // One slot of two taken; three items ready, created on three instances.
    const first = await create(onA, "taken")
    expect((await move(onA, first, "ready")).ok).toBe(true)
    expect((await move(onB, first, "doing")).ok).toBe(true)
    const racers = [await create(onA, "a"), await create(onB, "b"), await create(onC, "c")]
    for (const id of racers) expect((await move(onC, id, "ready")).ok).toBe(true)

    const answers = await Promise.all([move(onA, racers[0], "doing"), move(onB, racers[1], "doing"), move(onC, racers[2], "doing")])
    expect(answers.filter((r) => r.ok), JSON.stringify(answers)).toHaveLength(1)
    for (const refused of answers.filter((r) => !r.ok)) {
      expect(refused.error).toMatchObject({ code: "wip_limit_exceeded", details: { to: "doing", limit: 2, current: 2 } })
    }
    const listed = await onB.request("work.list", { ...scope, statuses: ["doing"] })
    expect(listed.result.items).toHaveLength(2)
  }, 60_000)

  it("failed authentications sent to all three instances count against one limit", async () => {
    const bad = { headers: { authorization: `Bearer ${"0".repeat(64)}` } }
    const instances = [a, b, c]
    for (let i = 0; i < RATE_LIMIT_MAX; i++) {
      const res = await instances[i % 3].fetch("/status", bad)
      expect(res.status, `failure ${i + 1} on ${instances[i % 3].name}`).toBe(401)
    }
    // The limit is full on every instance, though each saw only a third of the failures.
    for (const instance of instances) {
      const res = await instance.fetch("/status", bad)
      expect(res.status, `after the limit, on ${instance.name}`).toBe(429)
      expect(await res.json()).toMatchObject({ error: expect.any(String), message: expect.any(String) })
      expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    }
    // A valid credential is never refused by the limit.
    for (const instance of instances) expect((await instance.call("GET", "/status")).status).toBe(200)
  }, 60_000)
})
