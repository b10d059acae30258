/**
 * The user journey, end to end on one gateway (test clock): a plan
 * whose spend is over the limit escalates; its approval is listed over HTTP
 * and asked of a connected operator client (`approval.request`); answering it
 * moves it once; a second, unanswered one expires when its TTL passes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { TestClock } from "effect/testing"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  // No heartbeat within the test's time jumps.
  gw = await startGateway({ approvalTtlSeconds: 600, wsPingIntervalMs: 3_600_000, wsPongTimeoutMs: 7_200_000 }, undefined, { clock: "test" })
})
afterAll(() => gw.close())

const auth = () => ({ headers: { authorization: `Bearer ${gw.adminToken}` } })
const trigger = { channel: "web", thread_id: "t-9", message: { text: "Buy the conference ticket" } }
const overLimit = (request_id: string) =>
  postJson(gw, "/plan", { request_id, trigger, tags: ["spend:25000:USD:Conf_Inc", "pii:none", "legal:none"] }, gw.adminToken)

describe("plan → approval → operator decision → expiry", () => {
  it("escalates, lists, asks the operator client, resolves once, and expires an unanswered one", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)

    const planned = await readJson(await overLimit("journey-1"))
    expect(planned.status).toBe("escalate")
    const id: number = planned.escalation.approval_id
    expect(planned.escalation.action.type).toBe("Confirm")

    const pending = await readJson(await gw.fetch("/approvals", auth()))
    expect(pending.approvals.map((a: { id: number }) => a.id)).toContain(id)
    const listed = pending.approvals.find((a: { id: number }) => a.id === id)
    expect(listed).toMatchObject({ kind: "spend", status: "pending", plan_id: planned.plan_id, resolution: null })

    const ask = await peer.next((m: any) => m?.type === "approval.request" && m.request_id === `approval-${id}`)
    expect(ask.payload).toMatchObject({ approval_id: id, plan_id: planned.plan_id, step_index: planned.escalation.step_index })
    peer.send({ request_id: `approval-${id}`, type: "approval.request", ok: true, result: { approved: true, reason: "budgeted" } })
    const resolved = await peer.next((m: any) => m?.type === "approval.resolved" && m.payload?.approval?.id === id)
    expect(resolved.payload.approval).toMatchObject({ status: "approved", resolution: { decision: "approved", reason: "budgeted" } })

    // Resolving again over HTTP changes nothing.
    const again = await postJson(gw, `/approvals/${id}/respond`, { decision: "denied" }, gw.adminToken)
    expect(again.status).toBe(200)
    expect((await readJson(again)).approval).toEqual(resolved.payload.approval)

    // A second plan's approval, never answered, expires when its TTL passes.
    const second = await readJson(await overLimit("journey-2"))
    const secondId: number = second.escalation.approval_id
    await peer.next((m: any) => m?.type === "approval.request" && m.request_id === `approval-${secondId}`)
    await gw.run(TestClock.adjust(Duration.seconds(600)))
    const expired = await peer.next((m: any) => m?.type === "approval.resolved" && m.payload?.approval?.id === secondId)
    expect(expired.payload.approval).toMatchObject({ status: "expired", resolution: { decision: "denied", reason: "expired" } })
    const final = await readJson(await gw.fetch(`/approvals/${secondId}`, auth()))
    expect(final.approval.status).toBe("expired")
    peer.ws.close()
  })
})
