/**
 * The workflow engine over HTTP and WebSocket on a real gateway (issue 12,
 * SQLite): the routes are 404 unless SVC_ENGINE_API_ENABLED=1; a two-step
 * Http run against a local server completes; a Confirm step pauses with a
 * `run.paused` event carrying a single-use resume token; approving the
 * approval over HTTP also continues the run; cancel ends a paused run and
 * cancels its approval; `workflow.run` works over WebSocket; the policy gate
 * (from `$SVC_HOME/policy.yml`) lets allowed hosts run, pauses for approval
 * where the bundle asks (approving continues), fails the run on a deny. On
 * SQLite, and on PostgreSQL when SVC_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

const KEY = "agent:default:main"

describe("workflow routes with SVC_ENGINE_API_ENABLED unset", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 10_000 })
  })
  afterAll(() => gw.close())

  it("answers 404 not_found", async () => {
    const res = await postJson(gw, "/workflow/run", { key: KEY, steps: [{ type: "Confirm" }] }, gw.adminToken)
    expect(res.status).toBe(404)
    expect(JSON.stringify(await readJson(res))).toContain("not_found")
    expect((await gw.fetch("/workflow/runs", { headers: { authorization: `Bearer ${gw.adminToken}` } })).status).toBe(404)
  })
})

/**
 * The agent bundle of these tests: Http to 127.0.0.1 allowed, except paths
 * under /ask (approval) and /denied (deny). docs/workflow.md shows the same.
 */
const POLICY = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
  require_approval: ["http://127.0.0.1:*/ask*"]
  deny: ["http://127.0.0.1:*/denied*"]
`

/** A fresh `$SVC_HOME` holding `policy.yml`. */
const homeWithPolicy = (policy: string) => {
  const home = mkdtempSync(join(tmpdir(), "svc-wf-http-"))
  writeFileSync(join(home, "policy.yml"), policy)
  return home
}

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

for (const database of databases) describe(`workflow routes with SVC_ENGINE_API_ENABLED=1 (${database.name})`, () => {
  let gw: TestGateway
  let upstream: HttpTarget
  let target: string
  let peer: Awaited<ReturnType<typeof connectPeer>>["peer"]

  beforeAll(async () => {
    upstream = await startHttpTarget((n) => ({ n }))
    target = upstream.url
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, home: homeWithPolicy(POLICY) }, database.storage())
    peer = (await connectPeer(gw.url, gw.adminToken)).peer
  })
  afterAll(async () => {
    peer?.ws.close()
    await gw?.close()
    await upstream?.close()
  })

  const get = async (path: string) => {
    const res = await gw.fetch(path, { headers: { authorization: `Bearer ${gw.adminToken}` } })
    return { status: res.status, body: await readJson(res) }
  }
  const post = async (path: string, body: unknown) => {
    const res = await postJson(gw, path, body, gw.adminToken)
    return { status: res.status, body: await readJson(res) }
  }
  const runStatus = async (run_id: string) => (await get(`/workflow/runs/${run_id}`)).body.run?.status
  const http = (path = "") => ({ type: "Http", args: { method: "GET", url: target + path } })
  const startPaused = async (steps: ReadonlyArray<unknown>) => {
    const paused = peer.next((m) => m.type === "run.paused", 20_000)
    const started = await post("/workflow/run", { key: KEY, steps })
    expect(started.status).toBe(200)
    const event = await paused
    expect(event.payload.run_id).toBe(started.body.run_id)
    return { run_id: started.body.run_id as string, event: event.payload }
  }

  it("runs two Http steps to completion", async () => {
    const before = upstream.calls.length
    const started = await post("/workflow/run", { key: KEY, steps: [http(), http()] })
    expect(started.status).toBe(200)
    expect(started.body).toMatchObject({ status: "ok", key: KEY, lane: "main", steps_count: 2 })
    await eventually(async () => (await runStatus(started.body.run_id)) === "succeeded", "run succeeded", 30_000)
    expect(upstream.calls.length - before).toBe(2)
    const detail = (await get(`/workflow/runs/${started.body.run_id}`)).body
    expect(detail.steps.map((s: any) => s.status)).toEqual(["succeeded", "succeeded"])
    const listed = (await get(`/workflow/runs?key=${encodeURIComponent(KEY)}`)).body
    expect(listed.runs.some((r: any) => r.run_id === started.body.run_id)).toBe(true)
    expect((await get("/workflow/runs/run-unknown")).status).toBe(404)
  })

  it("rejects an invalid key with 400", async () => {
    expect((await post("/workflow/run", { key: "nope", steps: [http()] })).status).toBe(400)
  })

  it("pauses at Confirm; the token resumes once", async () => {
    const { run_id, event } = await startPaused([{ type: "Confirm" }, http()])
    expect(event).toMatchObject({ step_index: 0, reason: "approval" })
    expect(typeof event.resume_token).toBe("string")
    expect(await runStatus(run_id)).toBe("paused")
    expect(await post("/workflow/resume", { token: event.resume_token })).toEqual({ status: 200, body: { status: "ok", run_id } })
    await eventually(async () => (await runStatus(run_id)) === "succeeded", "run succeeded", 30_000)
    expect((await post("/workflow/resume", { token: event.resume_token })).status).toBe(404)
    const approval = (await get(`/approvals/${event.approval_id}`)).body.approval
    expect(approval.status).toBe("approved")
    expect(JSON.stringify(approval)).not.toContain(event.resume_token)
  })

  it("continues when the approval is approved over HTTP", async () => {
    const { run_id, event } = await startPaused([{ type: "Confirm" }, http()])
    expect((await post(`/approvals/${event.approval_id}/respond`, { decision: "approved" })).status).toBe(200)
    await eventually(async () => (await runStatus(run_id)) === "succeeded", "run succeeded", 30_000)
    expect((await post("/workflow/resume", { token: event.resume_token })).status).toBe(404)
  })

  it("cancels a paused run and its approval", async () => {
    const { run_id, event } = await startPaused([{ type: "Confirm" }, http()])
    expect(await post("/workflow/cancel", { run_id })).toEqual({ status: 200, body: { status: "ok", run_id, cancelled: true } })
    expect(await runStatus(run_id)).toBe("cancelled")
    expect((await get(`/approvals/${event.approval_id}`)).body.approval.status).toBe("cancelled")
    expect((await post("/workflow/resume", { token: event.resume_token })).status).toBe(404)
    // Idempotent when already cancelled; false for a run that already succeeded or failed.
    expect((await post("/workflow/cancel", { run_id })).body.cancelled).toBe(true)
    const done = await post("/workflow/run", { key: KEY, steps: [http()] })
    await eventually(async () => (await runStatus(done.body.run_id)) === "succeeded", "run succeeded", 30_000)
    expect((await post("/workflow/cancel", { run_id: done.body.run_id })).body).toEqual({ status: "ok", run_id: done.body.run_id, cancelled: false })
    expect((await post("/workflow/cancel", { run_id: "run-unknown" })).status).toBe(404)
  })

  it("workflow.run over WebSocket", async () => {
    const { result } = await peer.request("workflow.run", { key: KEY, steps: [http()] })
    expect(result).toMatchObject({ status: "ok", steps_count: 1 })
    await eventually(async () => (await runStatus(result.run_id)) === "succeeded", "run succeeded", 30_000)
  })

  it("pauses for a policy approval where the bundle asks; approving continues the run", async () => {
    const before = upstream.calls.length
    const { run_id, event } = await startPaused([http("ask/1"), http()])
    expect(event).toMatchObject({ step_index: 0, reason: "policy" })
    expect(upstream.calls.length - before).toBe(0)
    const detail = (await get(`/workflow/runs/${run_id}`)).body
    expect(detail.run).toMatchObject({ status: "paused", paused_reason: "policy" })
    expect(detail.run.policy_snapshot_id).toEqual(expect.any(String))
    const approval = (await get(`/approvals/${event.approval_id}`)).body.approval
    expect(approval).toMatchObject({ kind: "policy", status: "pending", prompt: "Policy approval required to continue execution" })
    expect(approval.context.policy.policy_snapshot_id).toBe(detail.run.policy_snapshot_id)
    expect((await post(`/approvals/${event.approval_id}/respond`, { decision: "approved" })).status).toBe(200)
    await eventually(async () => (await runStatus(run_id)) === "succeeded", "run succeeded", 30_000)
    expect(upstream.calls.length - before).toBe(2)
    const attempt = (await get(`/workflow/runs/${run_id}`)).body.steps[0].attempts[0]
    expect(attempt.policy_decision).toMatchObject({ decision: "require_approval" })
  })

  it("denying a policy approval cancels the run", async () => {
    const { run_id, event } = await startPaused([http("ask/2")])
    expect((await post(`/approvals/${event.approval_id}/respond`, { decision: "denied" })).status).toBe(200)
    await eventually(async () => (await runStatus(run_id)) === "cancelled", "run cancelled", 30_000)
  })

  it("fails the step and the run with policy_denied where the bundle denies", async () => {
    const before = upstream.calls.length
    const started = await post("/workflow/run", { key: KEY, steps: [http(), http("denied/x"), http()] })
    await eventually(async () => (await runStatus(started.body.run_id)) === "failed", "run failed", 30_000)
    const detail = (await get(`/workflow/runs/${started.body.run_id}`)).body
    expect(detail.steps.map((s: any) => s.status)).toEqual(["succeeded", "failed", "skipped"])
    expect(detail.steps[1].attempts[0].error).toEqual({ code: "policy_denied", message: `policy denied tool.http.fetch (${target}denied/x)` })
    expect(upstream.calls.length - before).toBe(1)
  })
})

/**
 * The tool rule requires approval (the built-in bundle's tools default) while
 * egress to 127.0.0.1 is allowed, so an Http step pauses with a suggested
 * override; "approve always" creates it and the next run's step passes the
 * gate. One concurrency slot: a paused run holds none, so another run still
 * completes. `workflow.resume` and `workflow.cancel` over WebSocket.
 */
describe("workflow: approve always, concurrency slots, WS resume and cancel", () => {
  let gw: TestGateway
  let upstream: HttpTarget
  let target: string
  let peer: Awaited<ReturnType<typeof connectPeer>>["peer"]

  beforeAll(async () => {
    upstream = await startHttpTarget(() => ({}))
    target = `${upstream.url}always`
    const home = homeWithPolicy(`v: 1\nnetwork_egress:\n  allow: ["http://127.0.0.1:*"]\n`)
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, execConcurrency: 1, home })
    peer = (await connectPeer(gw.url, gw.adminToken)).peer
  })
  afterAll(async () => {
    peer?.ws.close()
    await gw?.close()
    await upstream?.close()
  })

  const auth = () => ({ authorization: `Bearer ${gw.adminToken}` })
  const get = async (path: string) => readJson(await gw.fetch(path, { headers: auth() }))
  const post = async (path: string, body: unknown) => {
    const res = await postJson(gw, path, body, gw.adminToken)
    return { status: res.status, body: await readJson(res) }
  }
  const runStatus = async (run_id: string) => (await get(`/workflow/runs/${run_id}`)).run?.status
  const pausedRun = async (key: string, steps: ReadonlyArray<unknown>) => {
    const paused = peer.next((m) => m.type === "run.paused", 20_000)
    const { result } = await peer.request("workflow.run", { key, steps })
    const event = await paused
    expect(event.payload.run_id).toBe(result.run_id)
    return { run_id: result.run_id as string, event: event.payload }
  }

  it("'approve always' on a policy pause creates the suggested override; the next run's step is not paused", async () => {
    const step = { type: "Http", args: { url: target } }
    const { run_id, event } = await pausedRun("agent:always:main", [step])
    expect(event.reason).toBe("policy")
    const approval = (await get(`/approvals/${event.approval_id}`)).approval
    const suggested = approval.context.policy.suggested_overrides
    expect(suggested).toEqual([expect.objectContaining({ tool_id: "tool.http.fetch", pattern: target })])
    const answer = await post(`/approvals/${event.approval_id}/respond`, { decision: "approved", mode: "always", overrides: suggested })
    expect(answer.status).toBe(200)
    expect(answer.body.created_overrides).toHaveLength(1)
    await eventually(async () => (await runStatus(run_id)) === "succeeded", "run succeeded", 30_000)

    const again = await post("/workflow/run", { key: "agent:always:main", steps: [step] })
    await eventually(async () => (await runStatus(again.body.run_id)) === "succeeded", "second run succeeded", 30_000)
    const attempt = (await get(`/workflow/runs/${again.body.run_id}`)).steps[0].attempts[0]
    expect(attempt.policy_applied_override_ids).toEqual([answer.body.created_overrides[0].policy_override_id])
  })

  it("a paused run holds no concurrency slot; workflow.resume and workflow.cancel over WebSocket", async () => {
    const held = await pausedRun("agent:slot1:main", [{ type: "Confirm" }])
    const other = await pausedRun("agent:slot2:main", [{ type: "Confirm" }])
    const before = upstream.calls.length
    // With SVC_EXEC_CONCURRENCY=1 and two paused runs, a third run's step still runs.
    const free = await post("/workflow/run", { key: "agent:always:main", steps: [{ type: "Http", args: { url: target } }] })
    await eventually(async () => (await runStatus(free.body.run_id)) === "succeeded", "free run succeeded", 30_000)
    expect(upstream.calls.length - before).toBe(1)

    expect((await peer.request("workflow.resume", { token: held.event.resume_token })).result).toEqual({ status: "ok", run_id: held.run_id })
    await eventually(async () => (await runStatus(held.run_id)) === "succeeded", "held run succeeded", 30_000)
    expect((await peer.request("workflow.cancel", { run_id: other.run_id, reason: "done" })).result).toEqual({
      status: "ok",
      run_id: other.run_id,
      cancelled: true
    })
    expect(await runStatus(other.run_id)).toBe("cancelled")
  })
})
