/**
 * The workflow engine over HTTP and WebSocket on a real gateway (issue 12,
 * SQLite): the routes are 404 unless SVC_ENGINE_API_ENABLED=1; a two-step
 * Http run against a local server completes; a Confirm step pauses with a
 * `run.paused` event carrying a single-use resume token; approving the
 * approval over HTTP also continues the run; cancel ends a paused run and
 * cancels its approval; `workflow.run` works over WebSocket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { eventually } from "../support/eventually.ts"
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

describe("workflow routes with SVC_ENGINE_API_ENABLED=1", () => {
  let gw: TestGateway
  let server: Server
  let target: string
  let calls = 0
  let peer: Awaited<ReturnType<typeof connectPeer>>["peer"]

  beforeAll(async () => {
    server = createServer((_req, res) => {
      calls++
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ n: calls }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true })
    peer = (await connectPeer(gw.url, gw.adminToken)).peer
  })
  afterAll(async () => {
    peer?.ws.close()
    await gw?.close()
    await new Promise((resolve) => server?.close(resolve))
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
  const http = () => ({ type: "Http", args: { method: "GET", url: target } })
  const startPaused = async (steps: ReadonlyArray<unknown>) => {
    const paused = peer.next((m) => m.type === "run.paused", 20_000)
    const started = await post("/workflow/run", { key: KEY, steps })
    expect(started.status).toBe(200)
    const event = await paused
    expect(event.payload.run_id).toBe(started.body.run_id)
    return { run_id: started.body.run_id as string, event: event.payload }
  }

  it("runs two Http steps to completion", async () => {
    const before = calls
    const started = await post("/workflow/run", { key: KEY, steps: [http(), http()] })
    expect(started.status).toBe(200)
    expect(started.body).toMatchObject({ status: "ok", key: KEY, lane: "main", steps_count: 2 })
    await eventually(async () => (await runStatus(started.body.run_id)) === "succeeded", "run succeeded", 30_000)
    expect(calls - before).toBe(2)
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
    expect((await post("/workflow/cancel", { run_id })).body.cancelled).toBe(false)
    expect((await post("/workflow/cancel", { run_id: "run-unknown" })).status).toBe(404)
  })

  it("workflow.run over WebSocket", async () => {
    const { result } = await peer.request("workflow.run", { key: KEY, steps: [http()] })
    expect(result).toMatchObject({ status: "ok", steps_count: 1 })
    await eventually(async () => (await runStatus(result.run_id)) === "succeeded", "run succeeded", 30_000)
  })
})
