/**
 * The audit chain over HTTP on a real gateway, on SQLite and PostgreSQL
 * (gateway-api.md "Audit"; docs/audit.md): the three routes (shapes, 400
 * naming the field, 404, admin only), and the journey: a plan escalates and
 * its approval is approved, a node is paired, a device token is issued and
 * revoked, a bad token and a missing scope are refused (HTTP, WS upgrade and
 * WS requests), a routing config changes; every decision is
 * in its chain, the exported chains verify, tampering is caught, and
 * anonymize keeps the chain valid while erasing the actions.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { WebSocket } from "ws"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

const trigger = { channel: "telegram", thread_id: "t-1", message: { text: "Order the usual flowers" } }
const types = (bundle: any): Array<string> => bundle.events.map((e: any) => e.action?.type ?? null)

for (const database of databases) {
  describe(`audit routes on ${database.name}`, () => {
    let gw: TestGateway
    beforeAll(async () => {
      gw = await startGateway({ rateLimitMax: 10_000 }, database.storage())
    })
    afterAll(() => gw.close())

    const get = (path: string, token = gw.adminToken) => gw.fetch(path, { headers: { authorization: `Bearer ${token}` } })
    const post = (path: string, body: unknown, token = gw.adminToken) => postJson(gw, path, body, token)
    const exportChain = async (chain: string) => {
      const res = await get(`/audit/export/${encodeURIComponent(chain)}`)
      expect(res.status).toBe(200)
      return readJson(res)
    }
    const deviceToken = async (scopes: ReadonlyArray<string>) =>
      (await readJson(await post("/auth/device-tokens/issue", { device_id: `dev-${scopes.join("-")}`, role: "client", scopes })))

    it("GET /audit/export/:planId: 404 not_found for a chain without events", async () => {
      const res = await get("/audit/export/plan-unknown")
      expect(res.status).toBe(404)
      expect(await readJson(res)).toEqual({ error: "not_found", message: "no audit events for plan-unknown" })
    })

    it("POST /audit/verify: 400 without an events array or with a malformed event, naming the field", async () => {
      const invalid = async (body: unknown) => {
        const res = await post("/audit/verify", body)
        expect(res.status).toBe(400)
        const answer = await readJson(res)
        expect(answer.error).toBe("invalid_request")
        return answer.message as string
      }
      expect(await invalid({})).toMatch(/^events: missing required field/)
      expect(await invalid({ events: "all" })).toMatch(/^events: expected an array/)
      expect(await invalid("{")).toMatch(/JSON/)
      const event = { id: 1, plan_id: "p", step_index: 0, occurred_at: "t", action: null, action_sha256: "a", prev_hash: null, event_hash: "h" }
      expect(await invalid({ events: [{ ...event, event_hash: undefined }] })).toMatch(/^events\[0\]\.event_hash: missing required field/)
      expect(await invalid({ events: [event, { ...event, step_index: "1" }] })).toMatch(/^events\[1\]\.step_index: expected/)
      expect(await invalid({ events: [{ ...event, prev_hash: 5 }] })).toMatch(/^events\[0\]\.prev_hash: expected/)
      // Well-formed but not a chain: 200 with the break.
      const res = await post("/audit/verify", { events: [event] })
      expect(res.status).toBe(200)
      expect(await readJson(res)).toEqual({ valid: false, checked_count: 1, broken_at_index: 0, broken_at_id: 1 })
      expect(await readJson(await post("/audit/verify", { events: [] }))).toEqual({
        valid: true,
        checked_count: 0,
        broken_at_index: null,
        broken_at_id: null
      })
    })

    it("POST /audit/forget: 400 for a wrong confirm, decision or missing entity", async () => {
      const body = { confirm: "FORGET", entity_type: "plan", entity_id: "plan-x", decision: "retain" }
      const message = async (sent: unknown) => {
        const res = await post("/audit/forget", sent)
        expect(res.status).toBe(400)
        return (await readJson(res)).message as string
      }
      expect(await message({ ...body, confirm: "forget" })).toMatch(/^confirm: expected "FORGET"/)
      expect(await message({ ...body, decision: "purge" })).toMatch(/^decision: expected one of delete, anonymize, retain/)
      expect(await message({ ...body, entity_id: "" })).toMatch(/^entity_id: expected 1 to 256 characters/)
      const { entity_type: _, ...noType } = body
      expect(await message(noType)).toMatch(/^entity_type: missing required field/)
    })

    it("every route needs operator.admin: 401 without a token, 403 with operator.read, allowed with operator.admin", async () => {
      expect((await gw.fetch("/audit/export/plan-x")).status).toBe(401)
      const reader = await deviceToken(["operator.read"])
      expect((await get("/audit/export/plan-x", reader.token)).status).toBe(403)
      expect((await post("/audit/verify", { events: [] }, reader.token)).status).toBe(403)
      expect((await post("/audit/forget", { confirm: "FORGET", entity_type: "plan", entity_id: "x", decision: "retain" }, reader.token)).status)
        .toBe(403)
      const admin = await deviceToken(["operator.admin"])
      expect((await post("/audit/verify", { events: [] }, admin.token)).status).toBe(200)
      expect((await get("/audit/export/plan-none", admin.token)).status).toBe(404)
    })

    it("a plan, its approval, a pairing, a device token and refused credentials land in their chains, which verify", async () => {
      // A plan that escalates, approved over HTTP.
      const planRes = await post("/plan", { request_id: `audit-${database.name}`, trigger, tags: ["spend:15000:USD", "pii:none", "legal:none"] })
      const plan = await readJson(planRes)
      expect(plan.status).toBe("escalate")
      const approvalId = plan.escalation.approval_id
      expect((await post(`/approvals/${approvalId}/respond`, { decision: "approved", reason: "fine" })).status).toBe(200)
      const planChain = await exportChain(plan.plan_id)
      expect(planChain).toEqual({
        plan_id: plan.plan_id,
        events: expect.any(Array),
        chain_verification: { valid: true, checked_count: 4, broken_at_index: null, broken_at_id: null },
        exported_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
      })
      expect(types(planChain)).toEqual(["policy.checked", "approval.requested", "plan.created", "approval.approved"])
      expect(planChain.events[3].action).toMatchObject({ approval_id: approvalId, resolution: { decision: "approved", reason: "fine" } })
      expect(Object.keys(planChain.events[0]).sort()).toEqual(
        ["action", "action_sha256", "event_hash", "id", "occurred_at", "plan_id", "prev_hash", "step_index"]
      )
      // The exported chain verifies as given, and each kind of tampering is caught with its index and id.
      const verify = async (events: Array<any>) => readJson(await post("/audit/verify", { events }))
      expect((await verify(planChain.events)).valid).toBe(true)
      const events = planChain.events
      const at = (i: number) => ({ valid: false, checked_count: i + 1, broken_at_index: i, broken_at_id: events[i].id })
      expect(await verify(events.map((e: any, i: number) => i === 2 ? { ...e, action: { ...e.action, type: "plan.forged" } } : e))).toEqual(at(2))
      expect(await verify(events.map((e: any, i: number) => i === 1 ? { ...e, occurred_at: "2000-01-01T00:00:00.000Z" } : e))).toEqual(at(1))
      expect(await verify([events[0], events[2], events[3]])).toEqual({ ...at(2), checked_count: 2, broken_at_index: 1 })
      expect(await verify([events[0], events[2], events[1], events[3]])).toEqual({ ...at(2), checked_count: 2, broken_at_index: 1 })
      expect(await verify(events.map((e: any, i: number) => i === 3 ? { ...e, prev_hash: events[1].event_hash } : e))).toEqual(at(3))

      // A node pairs: requested when it connects, approved over HTTP.
      const { peer: node, identity } = await connectPeer(gw.url, gw.adminToken, { role: "node", capabilities: [{ id: "cli.exec", version: "1.0.0" }] })
      let pairingId = 0
      await eventually(async () => {
        const pairings = (await readJson(await get("/pairings?status=pending"))).pairings
        pairingId = pairings.find((p: any) => p.node.node_id === identity.deviceId)?.pairing_id ?? 0
        return pairingId > 0
      }, "the node's pending pairing")
      const approved = await post(`/pairings/${pairingId}/approve`, { trust_level: "local", capability_allowlist: [{ id: "cli.exec", version: "1.0.0" }] })
      expect(approved.status).toBe(200)
      const scoped = await node.next((m) => m?.type === "pairing.approved")
      node.ws.close()
      const pairingChain = await exportChain("gateway.pairing")
      expect(pairingChain.chain_verification.valid).toBe(true)
      expect(pairingChain.events.filter((e: any) => e.action.pairing_id === pairingId).map((e: any) => e.action.type))
        .toEqual(["pairing.requested", "pairing.approved"])
      expect(JSON.stringify(pairingChain)).not.toContain(scoped.payload.scoped_token)

      // A device token issued and revoked.
      const issued = await deviceToken(["operator.approvals"])
      expect((await post("/auth/device-tokens/revoke", { token: issued.token })).status).toBe(200)
      const tokenChain = await exportChain("gateway.device_tokens")
      expect(tokenChain.chain_verification.valid).toBe(true)
      expect(tokenChain.events.filter((e: any) => e.action.token_id === issued.token_id).map((e: any) => e.action.type))
        .toEqual(["device_token.issued", "device_token.revoked"])
      expect(JSON.stringify(tokenChain)).not.toContain(issued.token)

      // A bad token (401) and a missing scope (403), over HTTP.
      const bogus = "svc-device.v1.not-a-real-token-at-all"
      expect((await get("/approvals", bogus)).status).toBe(401)
      const reader = await deviceToken(["operator.read"])
      expect((await get(`/audit/export/${plan.plan_id}`, reader.token)).status).toBe(403)
      const authChain = await exportChain("gateway.auth")
      expect(authChain.chain_verification.valid).toBe(true)
      const authEvents = authChain.events.map((e: any) => e.action)
      expect(authEvents).toContainEqual({ type: "auth.failed", reason: "invalid_token", client_address: expect.any(String) })
      expect(authEvents).toContainEqual({
        type: "authz.denied",
        transport: "http",
        route: "/audit/export/:planId",
        method: "GET",
        required_scope: "operator.admin",
        reason: "insufficient scope: this route requires operator.admin",
        principal: "device",
        token_id: reader.token_id,
        device_id: "dev-operator.read",
        role: "client"
      })
      expect(JSON.stringify(authChain)).not.toContain(bogus)
      expect(JSON.stringify(authChain)).not.toContain(reader.token)
    })

    it("a routing configuration change is audited in gateway.routing", async () => {
      const res = await gw.fetch("/routing/config", {
        method: "PUT",
        headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
        body: JSON.stringify({ config: { v: 1, messenger: { default_agent_id: "agent-a" } }, reason: "audit test" })
      })
      expect(res.status).toBe(201)
      const revision = (await readJson(res)).revision
      const chain = await exportChain("gateway.routing")
      expect(chain.chain_verification.valid).toBe(true)
      expect(chain.events.map((e: any) => e.action)).toContainEqual(expect.objectContaining({
        type: "routing.config.updated",
        revision,
        reason: "audit test",
        config_sha256: expect.stringMatching(/^[0-9a-f]{64}$/)
      }))
    })

    it("a WebSocket upgrade with a bad token is audited as auth.failed", async () => {
      const before = (await exportChain("gateway.auth")).events.length
      const bogus = "svc-device.v1.another-bad-token"
      const status = await new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(`${gw.url.replace(/^http/, "ws")}/ws`, { headers: { authorization: `Bearer ${bogus}` } })
        ws.on("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0))
        ws.on("open", () => reject(new Error("upgrade accepted")))
        ws.on("error", () => {})
      })
      expect(status).toBe(401)
      const chain = await exportChain("gateway.auth")
      expect(chain.events.slice(before).map((e: any) => e.action)).toEqual([
        { type: "auth.failed", reason: "invalid_token", client_address: expect.any(String) }
      ])
      expect(JSON.stringify(chain)).not.toContain(bogus)
    })

    it("a WebSocket request refused for its scope is audited as authz.denied (transport ws)", async () => {
      const identity = makeIdentity()
      const issued = await readJson(await post("/auth/device-tokens/issue", { device_id: identity.deviceId, role: "client", scopes: ["operator.read"] }))
      const { peer } = await connectPeer(gw.url, issued.token, { identity })
      const answer = await peer.request("approval.list", {})
      peer.ws.close()
      expect(answer).toMatchObject({ ok: false, error: { code: "forbidden" } })
      const authChain = await exportChain("gateway.auth")
      expect(authChain.events.map((e: any) => e.action)).toContainEqual({
        type: "authz.denied",
        transport: "ws",
        route: "approval.list",
        required_scope: "operator.approvals",
        reason: "insufficient scope: approval.list requires operator.approvals",
        principal: "device",
        token_id: issued.token_id,
        device_id: identity.deviceId,
        role: "client"
      })
      expect(authChain.chain_verification.valid).toBe(true)
    })

    it("anonymize over HTTP: actions erased, digests kept, a proof appended, the chain still verifies", async () => {
      const plan = await readJson(await post("/plan", { request_id: `anon-${database.name}`, trigger, tags: ["spend:100:EUR", "pii:none", "legal:none"] }))
      const before = await exportChain(plan.plan_id)
      const res = await post("/audit/forget", { confirm: "FORGET", entity_type: "plan", entity_id: plan.plan_id, decision: "anonymize" })
      expect(res.status).toBe(200)
      const answer = await readJson(res)
      expect(answer).toEqual({ decision: "anonymize", deleted_count: before.events.length, proof_event_id: expect.any(Number) })
      const after = await exportChain(plan.plan_id)
      expect(after.chain_verification).toEqual({ valid: true, checked_count: before.events.length + 1, broken_at_index: null, broken_at_id: null })
      expect(after.events.slice(0, -1).map((e: any) => e.action)).toEqual(before.events.map(() => null))
      expect(after.events.slice(0, -1).map((e: any) => e.action_sha256)).toEqual(before.events.map((e: any) => e.action_sha256))
      expect(after.events.at(-1)).toMatchObject({
        id: answer.proof_event_id,
        prev_hash: before.events.at(-1).event_hash,
        action: { type: "forget.proof", decision: "anonymize", entity_type: "plan", entity_id: plan.plan_id, deleted_count: before.events.length }
      })
      expect(JSON.stringify(after)).not.toContain("Order the usual flowers")
      expect((await readJson(await post("/audit/verify", { events: after.events }))).valid).toBe(true)
    })

    it("the gateway's security chains cannot be forgotten (400), not even with an operator.admin device token; nothing changes", async () => {
      // Something in each chain first: a refused token (gateway.auth) and an issued token (gateway.device_tokens).
      expect((await get("/approvals", "svc-device.v1.forget-me-not")).status).toBe(401)
      const admin = await deviceToken(["operator.admin"])
      for (const chain of ["gateway.auth", "gateway.device_tokens", "gateway.secrets", "gateway.pairing", "gateway.routing", "gateway.policy_overrides", "gateway.anything"]) {
        const before = await get(`/audit/export/${chain}`)
        const beforeBody = before.status === 200 ? await readJson(before) : undefined
        for (const decision of ["delete", "anonymize", "retain"]) {
          for (const token of [admin.token, gw.adminToken]) {
            const res = await post("/audit/forget", { confirm: "FORGET", entity_type: "chain", entity_id: chain, decision }, token)
            expect(res.status).toBe(400)
            expect(await readJson(res)).toEqual({
              error: "invalid_request",
              message: `entity_id: '${chain}' is a gateway security chain (gateway.*); security chains cannot be forgotten`
            })
          }
        }
        const after = await get(`/audit/export/${chain}`)
        expect(after.status).toBe(before.status)
        if (beforeBody !== undefined) {
          const afterBody = await readJson(after)
          // Unchanged, apart from the authz/auth events the calls themselves may not add (they were all authorized).
          expect(afterBody.events).toEqual(beforeBody.events)
          expect(afterBody.chain_verification.valid).toBe(true)
        }
      }
    })

    it("the forget.proof names who asked: the admin token, or the device token's device id and token id", async () => {
      const plan = await readJson(await post("/plan", { request_id: `actor-${database.name}`, trigger, tags: ["spend:100:EUR", "pii:none", "legal:none"] }))
      const admin = await deviceToken(["operator.admin"])
      const byDevice = await readJson(await post("/audit/forget", { confirm: "FORGET", entity_type: "plan", entity_id: plan.plan_id, decision: "retain" }, admin.token))
      const byAdmin = await readJson(await post("/audit/forget", { confirm: "FORGET", entity_type: "plan", entity_id: plan.plan_id, decision: "anonymize" }))
      const chain = await exportChain(plan.plan_id)
      const proofs = chain.events.filter((e: any) => e.action?.type === "forget.proof")
      expect(proofs.map((e: any) => e.id)).toEqual([byDevice.proof_event_id, byAdmin.proof_event_id])
      expect(proofs[0].action).toEqual({
        type: "forget.proof",
        decision: "retain",
        entity_type: "plan",
        entity_id: plan.plan_id,
        deleted_count: 0,
        actor: { kind: "device", device_id: "dev-operator.admin", token_id: admin.token_id }
      })
      expect(proofs[1].action).toMatchObject({ decision: "anonymize", actor: { kind: "admin" } })
      expect(JSON.stringify(chain)).not.toContain(admin.token)
      expect(chain.chain_verification.valid).toBe(true)
    })

    it("delete over HTTP: the events are gone, the proof continues the chain and verifies", async () => {
      const plan = await readJson(await post("/plan", { request_id: `del-${database.name}`, trigger, tags: ["spend:100:EUR", "pii:none", "legal:none"] }))
      const before = await exportChain(plan.plan_id)
      const answer = await readJson(
        await post("/audit/forget", { confirm: "FORGET", entity_type: "plan", entity_id: plan.plan_id, decision: "delete" })
      )
      expect(answer).toEqual({ decision: "delete", deleted_count: before.events.length, proof_event_id: expect.any(Number) })
      const after = await exportChain(plan.plan_id)
      expect(after.events).toHaveLength(1)
      expect(after.events[0]).toMatchObject({ id: answer.proof_event_id, step_index: before.events.length, prev_hash: before.events.at(-1).event_hash })
      expect(after.chain_verification.valid).toBe(true)
    })
  })
}
