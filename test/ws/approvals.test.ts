/**
 * Approvals over WebSocket on a real server (gateway-api.md message table;
 * reference §3.4): approval.list with cursor pagination, approval.resolve,
 * events and their audience, HTTP and WS resolving the same approval at once,
 * the gateway-initiated approval.request answered by real `ws` clients, expiry
 * on the test clock, and the SDK's typed helpers.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { type ApprovalCreateInput, Approvals } from "../../services/approvals/Approvals.ts"
import { GatewayRequests } from "../../services/ws-sessions/GatewayRequests.ts"
import {
  type ApprovalRecord,
  type GatewayEventMap,
  generateDeviceIdentity,
  GatewayClient,
  GatewayRequestError
} from "../../src/client/index.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity, type TestPeer } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

const create = (over: Partial<ApprovalCreateInput> = {}, on: TestGateway = gw) =>
  on.run(Effect.flatMap(Approvals, (a) => a.create({ kind: "spend", plan_id: "ws-plan", step_index: 0, prompt: "Allow?", ...over })))

const readApproval = async (id: number) =>
  (await readJson(await gw.fetch(`/approvals/${id}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }))).approval

const deviceToken = async (scopes: ReadonlyArray<string>, role: "client" | "node" = "client") => {
  const identity = makeIdentity()
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role, scopes }, gw.adminToken)
  return { identity, token: (await readJson(res)).token as string }
}

const connectDevice = async (scopes: ReadonlyArray<string>, role: "client" | "node" = "client") => {
  const { identity, token } = await deviceToken(scopes, role)
  return connectPeer(gw.url, token, { identity, role })
}

const isEvent = (type: string, id: number) => (m: any) => m?.type === type && "event_id" in m && m.payload?.approval?.id === id
const isAsk = (id: number) => (m: any) => m?.type === "approval.request" && m.request_id === `approval-${id}` && !("ok" in m)
const answer = (peer: TestPeer, id: number, result: unknown) =>
  peer.send({ request_id: `approval-${id}`, type: "approval.request", ok: true, result })

/** Nothing matching `predicate` has reached `peer` by the time a ping round-trip (sent now) completes. */
const nothingYet = async (peer: TestPeer, predicate: (m: any) => boolean) => {
  expect((await peer.request("ping")).ok).toBe(true)
  await expect(peer.next(predicate, 1)).rejects.toThrow(/timed out/)
}

describe("approval.list", () => {
  it("pages through every approval with the cursor (limit 2), filtered by run and kind", async () => {
    const run = `run-${Math.random().toString(36).slice(2)}`
    const made: Array<ApprovalRecord> = []
    for (let i = 0; i < 5; i++) made.push(await create({ kind: i === 3 ? "pii" : "spend", scope: { run_id: run, step_index: i } }))
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const seen: Array<number> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const res = await peer.request("approval.list", { run_id: run, limit: 2, ...(cursor !== undefined ? { cursor } : {}) })
      expect(res.ok).toBe(true)
      seen.push(...res.result.approvals.map((a: ApprovalRecord) => a.id))
      cursor = res.result.next_cursor
      pages++
    } while (cursor !== undefined)
    expect(pages).toBe(3)
    expect(seen).toEqual(made.map((a) => a.id))
    const pii = await peer.request("approval.list", { run_id: run, kind: ["pii"] })
    expect(pii.result).toEqual({ approvals: [made[3]] })
    peer.ws.close()
  })

  it("answers invalid payloads and cursors with invalid_request; nodes are unauthorized; scopes are enforced", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    for (const payload of [{ limit: 0 }, { limit: 501 }, { status: "open" }, { kind: ["nope"] }, { cursor: "not-ours" }]) {
      const res = await peer.request("approval.list", payload)
      expect(res.ok, JSON.stringify(payload)).toBe(false)
      expect(res.error.code).toBe("invalid_request")
    }
    expect((await peer.request("approval.list", { status: "open" })).error.message).toMatch(/one of pending, approved, denied, expired, cancelled/)
    expect((await peer.request("approval.resolve", { approval_id: 1 })).error.code).toBe("invalid_request")
    expect((await peer.request("approval.resolve", { approval_id: 999999, decision: "approved" })).error.code).toBe("not_found")
    peer.ws.close()
    const node = await connectDevice(["operator.approvals"], "node")
    expect((await node.peer.request("approval.list", {})).error.code).toBe("unauthorized")
    node.peer.ws.close()
    const reader = await connectDevice(["operator.read", "operator.write"])
    expect((await reader.peer.request("approval.list", {})).error.code).toBe("forbidden")
    expect((await reader.peer.request("approval.resolve", { approval_id: 1, decision: "approved" })).error.code).toBe("forbidden")
    reader.peer.ws.close()
  })
})

describe("approval.resolve and events", () => {
  it("resolves once; approval.requested/resolved go to approvers only; a repeated resolve is idempotent and not re-broadcast", async () => {
    const approver = await connectDevice(["operator.approvals"])
    const reader = await connectDevice(["operator.read"])
    const { peer: admin } = await connectPeer(gw.url, gw.adminToken)
    const a = await create({ scope: { run_id: "run-ev" } })
    const requested = await approver.peer.next(isEvent("approval.requested", a.id))
    expect(requested).toMatchObject({ payload: { approval: a }, scope: { kind: "run", run_id: "run-ev" } })
    await admin.next(isEvent("approval.requested", a.id))
    const res = await approver.peer.request("approval.resolve", { approval_id: a.id, decision: "approved", reason: "ok" })
    expect(res.ok).toBe(true)
    expect(res.result.approval).toMatchObject({
      id: a.id,
      status: "approved",
      resolution: { decision: "approved", reason: "ok", resolved_by: { kind: "ws", principal: approver.identity.deviceId } }
    })
    expect((await admin.next(isEvent("approval.resolved", a.id))).payload.approval).toEqual(res.result.approval)
    await approver.peer.next(isEvent("approval.resolved", a.id))
    const again = await admin.request("approval.resolve", { approval_id: a.id, decision: "denied" })
    expect(again.result).toEqual({ approval: res.result.approval })
    const marker = await create()
    const next = await approver.peer.next((m) => m?.type === "approval.resolved" || isEvent("approval.requested", marker.id)(m))
    expect(next.type).toBe("approval.requested") // the repeat was not announced
    await nothingYet(reader.peer, (m) => typeof m?.type === "string" && m.type.startsWith("approval."))
    for (const p of [approver.peer, reader.peer, admin]) p.ws.close()
  })

  it("HTTP and WS resolving the same approval at once: exactly one transition, both answers the same", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    for (let round = 0; round < 8; round++) {
      const a = await create({ plan_id: `race-${round}` })
      const [http, ws] = await Promise.all([
        postJson(gw, `/approvals/${a.id}/respond`, { decision: round % 2 === 0 ? "approved" : "denied" }, gw.adminToken).then(readJson),
        peer.request("approval.resolve", { approval_id: a.id, decision: round % 2 === 0 ? "denied" : "approved" })
      ])
      expect(ws.ok).toBe(true)
      expect(ws.result.approval).toEqual(http.approval)
      expect(http.approval.status).not.toBe("pending")
      expect(await readApproval(a.id)).toEqual(http.approval)
      const winner = http.approval.resolution.resolved_by.kind
      expect(["http", "ws"]).toContain(winner)
      const resolved = await peer.next(isEvent("approval.resolved", a.id))
      expect(resolved.payload.approval).toEqual(http.approval)
    }
    // One approval.resolved per approval: the next event is the marker's approval.requested.
    const marker = await create()
    expect(await peer.next((m) => m?.type === "approval.resolved" || isEvent("approval.requested", marker.id)(m))).toMatchObject({
      type: "approval.requested"
    })
    peer.ws.close()
  })
})

describe("the gateway-initiated approval.request, answered by real ws clients", () => {
  it("is sent to every eligible client; the first valid answer resolves it; a later answer changes nothing", async () => {
    const first = await connectPeer(gw.url, gw.adminToken)
    const second = await connectDevice(["operator.approvals"])
    const reader = await connectDevice(["operator.read"])
    const node = await connectPeer(gw.url, gw.adminToken, { role: "node" })
    const a = await create({ plan_id: "asked", step_index: 2, context: { amount: 12 } })
    const ask = await first.peer.next(isAsk(a.id))
    expect(ask).toEqual({
      request_id: `approval-${a.id}`,
      type: "approval.request",
      payload: { approval_id: a.id, plan_id: "asked", step_index: 2, prompt: "Allow?", context: { amount: 12 }, expires_at: a.expires_at }
    })
    await second.peer.next(isAsk(a.id))
    await nothingYet(reader.peer, isAsk(a.id))
    await nothingYet(node.peer, isAsk(a.id))

    answer(second.peer, a.id, { approved: true, reason: "looks right" })
    const resolved = await first.peer.next(isEvent("approval.resolved", a.id))
    expect(resolved.payload.approval).toMatchObject({
      status: "approved",
      resolution: { decision: "approved", reason: "looks right", resolved_by: { kind: "ws", principal: second.identity.deviceId } }
    })
    answer(first.peer, a.id, { approved: false, reason: "too late" })
    await nothingYet(first.peer, (m) => m?.type === "error" || isEvent("approval.resolved", a.id)(m))
    expect(await readApproval(a.id)).toEqual(resolved.payload.approval)
    for (const p of [first, second, reader, node]) p.peer.ws.close()
  })

  it("an invalid answer gets an error event and decides nothing; a client that disconnects changes nothing", async () => {
    const only = await connectDevice(["operator.approvals"])
    const a = await create()
    await only.peer.next(isAsk(a.id))
    answer(only.peer, a.id, { approved: "yes" })
    const error = await only.peer.next((m) => m?.type === "error")
    expect(error.payload).toMatchObject({ code: "invalid_approval_decision" })
    expect(error.payload.message).toMatch(new RegExp(`approval-${a.id}: .*approved`))
    expect((await readApproval(a.id)).status).toBe("pending")

    const leaver = await connectDevice(["operator.approvals"])
    const b = await create()
    await leaver.peer.next(isAsk(b.id))
    await only.peer.next(isAsk(b.id))
    leaver.peer.ws.close()
    only.peer.ws.close()
    await eventually(async () => (await gw.run(Effect.map(GatewayRequests, (r) => r.pendingCount()))) === 0, "the asks to end")
    expect((await readApproval(b.id)).status).toBe("pending")
  })
})

describe("expiry over WebSocket (test clock)", () => {
  let clocked: TestGateway
  beforeAll(async () => {
    // No heartbeat within the test's time jumps.
    clocked = await startGateway({ approvalTtlSeconds: 60, wsPingIntervalMs: 3_600_000, wsPongTimeoutMs: 7_200_000 }, undefined, {
      clock: "test"
    })
  })
  afterAll(() => clocked.close())

  it("announces approval.resolved (expired) at the moment expires_at passes; the open ask ends", async () => {
    const { peer } = await connectPeer(clocked.url, clocked.adminToken)
    const a = await create({}, clocked)
    expect(a.expires_at).toBe("1970-01-01T00:01:00.000Z")
    await peer.next(isAsk(a.id))
    await clocked.run(TestClock.adjust(Duration.seconds(59)))
    await nothingYet(peer, isEvent("approval.resolved", a.id))
    await clocked.run(TestClock.adjust(Duration.seconds(1)))
    const expired = await peer.next(isEvent("approval.resolved", a.id))
    expect(expired.payload.approval).toMatchObject({
      status: "expired",
      resolution: { decision: "denied", reason: "expired", resolved_at: "1970-01-01T00:01:00.000Z" }
    })
    await eventually(async () => (await clocked.run(Effect.map(GatewayRequests, (r) => r.pendingCount()))) === 0, "the ask to end")
    // An answer after expiry is an unknown response now, and changes nothing.
    answer(peer, a.id, { approved: true })
    expect((await peer.next((m) => m?.type === "error")).payload.code).toBe("unknown_response")
    const listed = await peer.request("approval.list", { status: "expired" })
    expect(listed.result.approvals).toEqual([expired.payload.approval])
    peer.ws.close()
  })
})

describe("SDK helpers", () => {
  it("listApprovals, resolveApproval and onApprovalRequest, with typed approval events", async () => {
    const operator = new GatewayClient({ url: gw.url, token: gw.adminToken, role: "client", identity: generateDeviceIdentity(), reconnect: false })
    const received: Array<{ type: string; approval: ApprovalRecord }> = []
    operator.on("event", (event) => {
      if (event.type === "approval.requested" || event.type === "approval.resolved") {
        const payload = event.payload as GatewayEventMap["approval.requested"] | GatewayEventMap["approval.resolved"]
        received.push({ type: event.type, approval: payload.approval })
      }
    })
    const asked: Array<number> = []
    operator.onApprovalRequest((payload) => {
      asked.push(payload.approval_id)
      return payload.prompt === "auto-approve" ? { approved: true, reason: "sdk" } : { approved: false }
    })
    await operator.connect()
    const run = `sdk-${Math.random().toString(36).slice(2)}`
    const auto = await create({ prompt: "auto-approve", scope: { run_id: run } })
    await eventually(async () => (await readApproval(auto.id)).status === "approved", "the SDK's answer to decide")
    expect(asked).toContain(auto.id)
    expect((await readApproval(auto.id)).resolution.reason).toBe("sdk")
    operator.onRequest("approval.request", () => new Promise(() => {})) // from now on: never answers

    const manual = await create({ prompt: "manual", scope: { run_id: run } })
    const page = await operator.listApprovals({ run_id: run, status: "pending", limit: 1 })
    expect(page.approvals.map((a) => a.id)).toEqual([manual.id])
    expect(page.next_cursor).toBeUndefined()
    const resolved = await operator.resolveApproval({ approval_id: manual.id, decision: "denied", reason: "sdk says no" })
    expect(resolved.approval.status).toBe("denied")
    expect(resolved.created_overrides).toBeUndefined()
    await eventually(() => received.filter((r) => r.approval.id === manual.id).length === 2, "both events of the manual approval")
    expect(received.filter((r) => r.approval.id === manual.id).map((r) => [r.type, r.approval.status])).toEqual([
      ["approval.requested", "pending"],
      ["approval.resolved", "denied"]
    ])
    const error = await operator.resolveApproval({ approval_id: 999999, decision: "approved" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(GatewayRequestError)
    expect((error as GatewayRequestError).code).toBe("not_found")
    await operator.close()
  })

  it("types the helpers (checked by tsc)", () => {
    const typed = (client: GatewayClient) => {
      // @ts-expect-error decision is approved or denied
      void client.resolveApproval({ approval_id: 1, decision: "maybe" })
      // @ts-expect-error kind is a list of ApprovalKind
      void client.listApprovals({ kind: "spend" })
      // @ts-expect-error approval.request handlers answer {approved}
      client.onApprovalRequest(() => ({ decision: "approved" }))
      const status: Promise<ApprovalRecord["status"]> = client.resolveApproval({ approval_id: 1, decision: "approved" }).then((r) => r.approval.status)
      const expired: GatewayEventMap["approval.resolved"]["approval"]["resolution"] = null
      return [status, expired]
    }
    expect(typeof typed).toBe("function")
  })
})
