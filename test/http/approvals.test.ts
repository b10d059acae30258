/**
 * Approvals over HTTP on a real server (gateway-api.md "Approvals"; reference
 * §3.3): list, get, preview, respond (decision, legacy, idempotent, "approve
 * always" with the real override store), ids and errors, scopes, expiry on the
 * test clock. The record is the same contract as over WebSocket, never the
 * stored row.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type ApprovalCreateInput, Approvals } from "../../services/approvals/Approvals.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

const auth = (token = gw.adminToken) => ({ authorization: `Bearer ${token}` })
const get = (path: string, token?: string) => gw.fetch(path, { headers: auth(token) })
const respond = (id: number | string, body: unknown, token = gw.adminToken) => postJson(gw, `/approvals/${id}/respond`, body, token)

const create = (over: Partial<ApprovalCreateInput> = {}) =>
  gw.run(Effect.flatMap(Approvals, (a) => a.create({ kind: "spend", plan_id: "plan-1", step_index: 0, prompt: "Pay 90 EUR?", ...over })))

const deviceToken = async (scopes: ReadonlyArray<string>) => {
  const identity = makeIdentity()
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role: "client", scopes }, gw.adminToken)
  return { deviceId: identity.deviceId, token: (await readJson(res)).token as string }
}

const CONTRACT_KEYS = ["context", "created_at", "expires_at", "id", "kind", "plan_id", "prompt", "resolution", "status", "step_index"]

describe("GET /approvals, /approvals/:id, /approvals/:id/preview", () => {
  it("lists pending approvals by created_at (default), or by the status asked; the record is the contract", async () => {
    const first = await create({ plan_id: "list-1", scope: { run_id: "r1" } })
    const second = await create({ plan_id: "list-2" })
    const third = await create({ plan_id: "list-3" })
    await respond(second.id, { decision: "approved" })
    const pending = (await readJson(await get("/approvals"))).approvals as Array<any>
    const ids = pending.map((a) => a.id)
    expect(ids.filter((id) => [first.id, second.id, third.id].includes(id))).toEqual([first.id, third.id])
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    const record = pending.find((a) => a.id === first.id)
    expect(record).toEqual(first)
    expect(Object.keys(record).sort()).toEqual([...CONTRACT_KEYS, "scope"].sort())
    expect(JSON.stringify(pending)).not.toMatch(/resume_token|context_json|responded_at/)
    const approved = (await readJson(await get("/approvals?status=approved"))).approvals as Array<any>
    expect(approved.map((a) => a.id)).toContain(second.id)
    expect(approved.every((a) => a.status === "approved")).toBe(true)
    expect((await readJson(await get("/approvals?status=expired"))).approvals).toEqual([])
  })

  it("refuses an invalid status with 400 naming the allowed values", async () => {
    const res = await get("/approvals?status=open")
    expect(res.status).toBe(400)
    const body = await readJson(res)
    expect(body.error).toBe("invalid_request")
    expect(body.message).toMatch(/status: expected one of pending, approved, denied, expired, cancelled/)
  })

  it("gets one approval and its preview; 400 for a non-numeric or non-positive id, 404 for an unknown one", async () => {
    const approval = await create({ plan_id: "get-1", step_index: 3, context: { amount: 9000 } })
    expect(await readJson(await get(`/approvals/${approval.id}`))).toEqual({ approval })
    expect(await readJson(await get(`/approvals/${approval.id}/preview`))).toEqual({
      id: approval.id,
      plan_id: "get-1",
      step_index: 3,
      prompt: "Pay 90 EUR?",
      context: { amount: 9000 },
      status: "pending",
      expires_at: approval.expires_at
    })
    for (const bad of ["abc", "0", "-1", "1.5", "1e3", "%20"]) {
      for (const path of [`/approvals/${bad}`, `/approvals/${bad}/preview`]) {
        const res = await get(path)
        expect(res.status, path).toBe(400)
        expect((await readJson(res)).message).toMatch(/^id: expected a positive integer/)
      }
      expect((await respond(bad, { decision: "approved" })).status).toBe(400)
    }
    for (const path of ["/approvals/999999", "/approvals/999999/preview"]) {
      const res = await get(path)
      expect(res.status).toBe(404)
      expect(await readJson(res)).toEqual({ error: "not_found", message: "approval 999999 not found" })
    }
    expect((await respond(999999, { decision: "approved" })).status).toBe(404)
  })
})

describe("POST /approvals/:id/respond", () => {
  it("pending → approved and pending → denied, resolved_by naming the caller (never a token)", async () => {
    const a = await create()
    const res = await respond(a.id, { decision: "approved", reason: "within budget" })
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(body).toEqual({
      approval: {
        ...a,
        status: "approved",
        resolution: {
          decision: "approved",
          resolved_at: expect.any(String),
          resolved_by: { kind: "http", principal: "admin" },
          reason: "within budget"
        }
      }
    })
    const device = await deviceToken(["operator.approvals"])
    const b = await create()
    const denied = await readJson(await respond(b.id, { decision: "denied" }, device.token))
    expect(denied.approval.status).toBe("denied")
    expect(denied.approval.resolution.resolved_by).toEqual({ kind: "http", principal: device.deviceId })
    expect(JSON.stringify(denied)).not.toContain(device.token)
  })

  it("accepts the legacy {approved}; decision wins when both are given; neither is 400", async () => {
    const legacyYes = await create()
    const legacyNo = await create()
    const both = await create()
    expect((await readJson(await respond(legacyYes.id, { approved: true }))).approval.status).toBe("approved")
    expect((await readJson(await respond(legacyNo.id, { approved: false, reason: "no" }))).approval.resolution).toMatchObject({
      decision: "denied",
      reason: "no"
    })
    expect((await readJson(await respond(both.id, { approved: true, decision: "denied" }))).approval.status).toBe("denied")
    const pending = await create()
    for (const body of [{}, { reason: "why" }, { mode: "once" }]) {
      const res = await respond(pending.id, body)
      expect(res.status).toBe(400)
      expect(await readJson(res)).toEqual({
        error: "invalid_request",
        message: "decision (\"approved\" or \"denied\") or approved (boolean) is required"
      })
    }
    for (const body of [{ decision: "approve" }, { approved: "yes" }, { decision: "approved", mode: "forever" }, "[1]", "{"]) {
      expect((await respond(pending.id, body)).status).toBe(400)
    }
    expect((await readJson(await get(`/approvals/${pending.id}`))).approval.status).toBe("pending")
  })

  it("is idempotent once resolved: 200 with the unchanged approval, no side effects, no event", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const a = await create()
    await peer.next((m) => m.type === "approval.requested" && m.payload.approval.id === a.id)
    const first = await readJson(await respond(a.id, { decision: "denied", reason: "first" }))
    await peer.next((m) => m.type === "approval.resolved" && m.payload.approval.id === a.id)
    for (const body of [{ decision: "approved" }, { approved: true }, { decision: "approved", mode: "always", overrides: [] }]) {
      const res = await respond(a.id, body)
      expect(res.status).toBe(200)
      expect(await readJson(res)).toEqual(first)
    }
    // A marker event after the repeats: had they been announced, they would come first.
    const marker = await create()
    const next = await peer.next((m) => m.type === "approval.resolved" || m.type === "approval.requested")
    expect(next).toMatchObject({ type: "approval.requested", payload: { approval: { id: marker.id } } })
    peer.ws.close()
  })

  it("approve always: creates the selected suggested overrides (linked to the approval) with the real override store", async () => {
    const context = {
      source: "agent-tool-execution",
      policy: {
        agent_id: "agent-1",
        policy_snapshot_id: "6f1c2c1e-3f4b-4a59-9f0e-0a1b2c3d4e5f",
        suggested_overrides: [{ tool_id: "shell.exec", pattern: "git status*" }, { tool_id: "shell.exec", pattern: "rm -rf *" }]
      }
    }
    const a = await create({ kind: "workflow_step", context })
    const notSuggested = await respond(a.id, { decision: "approved", mode: "always", overrides: [{ tool_id: "shell.exec", pattern: "git *" }] })
    expect(notSuggested.status).toBe(400)
    expect((await readJson(notSuggested)).message).toMatch(/must be selected from context\.policy\.suggested_overrides/)
    const unsafe = await respond(a.id, { decision: "approved", mode: "always", overrides: [{ tool_id: "shell.exec", pattern: "rm -rf *" }] })
    expect(unsafe.status).toBe(400)
    expect((await readJson(unsafe)).message).toMatch(/guardrail.*whitespace before its trailing '\*'/)
    const empty = await respond(a.id, { decision: "approved", mode: "always", overrides: [] })
    expect((await readJson(empty)).message).toBe("mode=always requires selecting one or more overrides")
    expect((await readJson(await get(`/approvals/${a.id}`))).approval.status).toBe("pending")
    const ok = await readJson(await respond(a.id, {
      decision: "approved",
      mode: "always",
      overrides: [{ tool_id: "shell.exec", pattern: "git status*" }]
    }))
    expect(ok.approval.status).toBe("approved")
    expect(ok.created_overrides).toHaveLength(1)
    expect(ok.created_overrides[0]).toMatchObject({
      status: "active",
      agent_id: "agent-1",
      tool_id: "shell.exec",
      pattern: "git status*",
      created_from_approval_id: a.id,
      created_from_policy_snapshot_id: "6f1c2c1e-3f4b-4a59-9f0e-0a1b2c3d4e5f"
    })
    // Denying "always" creates nothing.
    const b = await create({ context })
    const denied = await readJson(await respond(b.id, { decision: "denied", mode: "always", overrides: [{ tool_id: "shell.exec", pattern: "git status*" }] }))
    expect(denied).not.toHaveProperty("created_overrides")
  })

  it("needs operator.approvals for device tokens", async () => {
    const a = await create()
    const reader = await deviceToken(["operator.read", "operator.write", "operator.admin"])
    for (const res of [await get("/approvals", reader.token), await get(`/approvals/${a.id}`, reader.token), await respond(a.id, { decision: "approved" }, reader.token)]) {
      expect(res.status).toBe(403)
      expect((await readJson(res)).error).toBe("forbidden")
    }
    const approver = await deviceToken(["operator.approvals"])
    expect((await get(`/approvals/${a.id}/preview`, approver.token)).status).toBe(200)
    expect((await gw.fetch("/approvals")).status).toBe(401)
  })
})

describe("expiry over HTTP (test clock; SVC_APPROVAL_TTL_S = 120)", () => {
  let clocked: TestGateway
  beforeAll(async () => {
    clocked = await startGateway({ approvalTtlSeconds: 120 }, undefined, { clock: "test" })
  })
  afterAll(() => clocked.close())

  it("every approval gets expires_at from the setting; it is expired at that moment, and responding then is idempotent", async () => {
    const a = await clocked.run(Effect.flatMap(Approvals, (s) => s.create({ kind: "other", plan_id: "p", step_index: 0, prompt: "ok?" })))
    expect(a.created_at).toBe("1970-01-01T00:00:00.000Z")
    expect(a.expires_at).toBe("1970-01-01T00:02:00.000Z")
    const read = async () => (await readJson(await clocked.fetch(`/approvals/${a.id}`, { headers: auth(clocked.adminToken) }))).approval
    await clocked.run(TestClock.adjust(Duration.seconds(119)))
    expect((await read()).status).toBe("pending")
    await clocked.run(TestClock.adjust(Duration.seconds(1)))
    const expired = await read()
    expect(expired).toMatchObject({
      status: "expired",
      resolution: { decision: "denied", reason: "expired", resolved_at: "1970-01-01T00:02:00.000Z", resolved_by: { kind: "system" } }
    })
    const res = await postJson(clocked, `/approvals/${a.id}/respond`, { decision: "approved" }, clocked.adminToken)
    expect(res.status).toBe(200)
    expect((await readJson(res)).approval).toEqual(expired)
    const listed = await readJson(await clocked.fetch("/approvals?status=expired", { headers: auth(clocked.adminToken) }))
    expect(listed.approvals.map((x: any) => x.id)).toEqual([a.id])
  })
})
