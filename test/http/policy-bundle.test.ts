/**
 * The policy bundle and overrides over HTTP (gateway-api.md "Policy";
 * reference §1.3, §1.4; docs/policy-bundle.md): the effective bundle, the
 * override lifecycle with real cursor pagination, 400s naming the field,
 * device-token scopes (operator.admin), events to operator.admin clients,
 * and expiry on the test clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeGatewayHttpClient } from "../../src/client/http.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

const issue = async (gw: TestGateway, scopes: ReadonlyArray<string>, device_id = `dev-${Math.random().toString(36).slice(2)}`) => {
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id, role: "client", scopes }, gw.adminToken)
  expect(res.status).toBe(201)
  return (await readJson(res)).token as string
}

describe("policy bundle over HTTP", () => {
  let gw: TestGateway
  let deploymentPath: string
  beforeAll(async () => {
    const probe = await startGateway()
    await probe.close()
    // A deployment bundle file and an agent bundle in the gateway's home.
    deploymentPath = join(probe.settings.home, "deployment.yaml")
    writeFileSync(deploymentPath, "v: 1\ntools:\n  default: require_approval\n  allow: [tool.http.get]\n")
    writeFileSync(join(probe.settings.home, "policy.json"), JSON.stringify({ v: 1, secrets: { deny: ["scope.root"] } }))
    gw = await startGateway({ home: probe.settings.home, policyBundlePath: deploymentPath, rateLimitMax: 10_000 })
  })
  afterAll(() => gw.close())

  const get = (path: string, token = gw.adminToken) => gw.fetch(path, { headers: bearer(token) })
  const create = (body: unknown, token = gw.adminToken) => postJson(gw, "/policy/overrides", body, token)

  it("GET /policy/bundle answers the effective bundle, its sha256 and its sources", async () => {
    const res = await get("/policy/bundle")
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(body.status).toBe("ok")
    expect(Number.isNaN(Date.parse(body.generated_at))).toBe(false)
    expect(body.effective.sha256).toMatch(/^[0-9a-f]{64}$/)
    expect(body.effective.sources).toEqual({ deployment: deploymentPath, agent: join(gw.settings.home, "policy.json"), playbook: null })
    expect(body.effective.bundle.tools).toEqual({ default: "require_approval", allow: ["tool.http.get"], require_approval: [], deny: [] })
    expect(body.effective.bundle.secrets).toEqual({ default: "deny", allow: [], require_approval: [], deny: ["scope.root"] })
    expect(Object.keys(body.effective).sort()).toEqual(["bundle", "sha256", "sources"])
  })

  it("creates (201), lists and revokes overrides; created_by defaults to {kind: http}", async () => {
    const res = await create({ agent_id: "agent-h", tool_id: "tool.exec", pattern: "git status*", workspace_id: "ws-1" })
    expect(res.status).toBe(201)
    const { override } = await readJson(res)
    expect(override).toMatchObject({ status: "active", agent_id: "agent-h", created_by: { kind: "http" }, expires_at: null })
    const listed = await readJson(await get("/policy/overrides?agent_id=agent-h&status=active"))
    expect(listed).toEqual({ overrides: [override] })

    const revoke = await postJson(gw, "/policy/overrides/revoke", { policy_override_id: override.policy_override_id, reason: "done" }, gw.adminToken)
    expect(revoke.status).toBe(200)
    expect((await readJson(revoke)).override).toMatchObject({ status: "revoked", revoked_reason: "done", revoked_by: { kind: "http" } })

    const again = await postJson(gw, "/policy/overrides/revoke", { policy_override_id: override.policy_override_id }, gw.adminToken)
    expect(again.status).toBe(404)
    expect(await readJson(again)).toEqual({ error: "not_found", message: "override not found or not active" })
  })

  it("pages with a real cursor over more than one page", async () => {
    const ids: Array<string> = []
    for (let i = 0; i < 5; i++) ids.push((await readJson(await create({ agent_id: "pager-h", tool_id: "t", pattern: `p${i}` }))).override.policy_override_id)
    const seen: Array<string> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const res = await get(`/policy/overrides?agent_id=pager-h&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
      expect(res.status).toBe(200)
      const page = await readJson(res)
      seen.push(...page.overrides.map((o: { policy_override_id: string }) => o.policy_override_id))
      cursor = page.next_cursor
      pages++
    } while (cursor !== undefined)
    expect(pages).toBe(3)
    expect(seen.length).toBe(5)
    expect([...seen].sort()).toEqual([...ids].sort())
  })

  it.each([
    ["/policy/overrides?limit=0", /^limit: expected an integer from 1 to 500/],
    ["/policy/overrides?limit=501", /^limit: expected an integer from 1 to 500/],
    ["/policy/overrides?limit=abc", /^limit: /],
    ["/policy/overrides?status=gone", /status: expected one of active, revoked, expired/],
    ["/policy/overrides?cursor=not-ours", /^cursor: /]
  ])("GET %s → 400 invalid_request naming the field", async (path, message) => {
    const res = await get(path)
    expect(res.status).toBe(400)
    const body = await readJson(res)
    expect(body.error).toBe("invalid_request")
    expect(body.message).toMatch(message)
  })

  it.each([
    ["a missing agent_id", { tool_id: "t", pattern: "p" }, /^agent_id: missing required field/],
    ["an agent_id with ':'", { agent_id: "a:b", tool_id: "t", pattern: "p" }, /^agent_id: /],
    ["a blank pattern", { agent_id: "a", tool_id: "t", pattern: " " }, /^pattern: /],
    ["a bad workspace", { agent_id: "a", tool_id: "t", pattern: "p", workspace_id: "WS 1" }, /^workspace_id: /],
    ["a bad expires_at", { agent_id: "a", tool_id: "t", pattern: "p", expires_at: "soon" }, /^expires_at: /],
    ["a past expires_at", { agent_id: "a", tool_id: "t", pattern: "p", expires_at: "2000-01-01T00:00:00Z" }, /^expires_at: must be later/],
    ["malformed JSON", "{", /malformed JSON/]
  ])("POST /policy/overrides with %s → 400 naming the field", async (_name, body, message) => {
    const res = await create(body)
    expect(res.status).toBe(400)
    const answer = await readJson(res)
    expect(answer.error).toBe("invalid_request")
    expect(answer.message).toMatch(message)
  })

  it("POST /policy/overrides/revoke with a non-UUID id → 400 naming the field", async () => {
    const res = await postJson(gw, "/policy/overrides/revoke", { policy_override_id: "x" }, gw.adminToken)
    expect(res.status).toBe(400)
    expect((await readJson(res)).message).toMatch(/^policy_override_id: expected a UUID/)
  })

  it("is callable through the typed HTTP client (query numbers, 201 bodies, declared errors)", async () => {
    const run = <A, E>(effect: Effect.Effect<A, E, any>): Promise<A> =>
      Effect.runPromise(Effect.provide(effect as Effect.Effect<A, E, HttpClient.HttpClient>, FetchHttpClient.layer))
    const result = await run(Effect.gen(function*() {
      const client = yield* makeGatewayHttpClient({ baseUrl: gw.url, token: gw.adminToken })
      const bundle = yield* client.policyBundle.bundle()
      const { override } = yield* client.policyBundle.createOverride({ payload: { agent_id: "typed", tool_id: "t", pattern: "p", created_by: { kind: "sdk" } } })
      const page = yield* client.policyBundle.listOverrides({ query: { agent_id: "typed", limit: 1 } })
      const missing = yield* Effect.flip(client.policyBundle.revokeOverride({ payload: { policy_override_id: crypto.randomUUID() } }))
      return { bundle, override, page, missing }
    }))
    expect(result.bundle.status).toBe("ok")
    expect(result.override.created_by).toEqual({ kind: "sdk" })
    expect(result.page.overrides).toEqual([result.override])
    expect(result.missing).toMatchObject({ error: "not_found" })
  })

  it("needs operator.admin for device tokens", async () => {
    const reader = await issue(gw, ["operator.read", "operator.write", "operator.approvals"])
    for (const res of [
      await get("/policy/bundle", reader),
      await get("/policy/overrides", reader),
      await create({ agent_id: "a", tool_id: "t", pattern: "p" }, reader),
      await postJson(gw, "/policy/overrides/revoke", { policy_override_id: crypto.randomUUID() }, reader)
    ]) {
      expect(res.status).toBe(403)
      expect((await readJson(res)).error).toBe("forbidden")
    }
    const admin = await issue(gw, ["operator.admin"])
    expect((await get("/policy/bundle", admin)).status).toBe(200)
    expect((await create({ agent_id: "a", tool_id: "t", pattern: "p" }, admin)).status).toBe(201)
    expect((await postJson(gw, "/policy/overrides/revoke", { policy_override_id: crypto.randomUUID() }, admin)).status).toBe(404)
  })

  it("sends policy_override.created and .revoked to operator.admin clients only", async () => {
    // A device token is bound to the device that connects with it.
    const connect = async (scopes: ReadonlyArray<string>) => {
      const identity = makeIdentity()
      return connectPeer(gw.url, await issue(gw, scopes, identity.deviceId), { identity })
    }
    const admin = await connect(["operator.admin"])
    const reader = await connect(["operator.read"])
    try {
      const { override } = await readJson(await create({ agent_id: "events", tool_id: "t", pattern: "p" }))
      const created = await admin.peer.next((m) => m.type === "policy_override.created" && m.payload.override.policy_override_id === override.policy_override_id)
      expect(created.payload).toEqual({ override })
      await postJson(gw, "/policy/overrides/revoke", { policy_override_id: override.policy_override_id }, gw.adminToken)
      const revoked = await admin.peer.next((m) => m.type === "policy_override.revoked")
      expect(revoked.payload.override).toMatchObject({ policy_override_id: override.policy_override_id, status: "revoked" })
      await expect(reader.peer.next((m) => String(m.type).startsWith("policy_override."), 300)).rejects.toThrow(/timed out/)
    } finally {
      admin.peer.ws.close()
      reader.peer.ws.close()
    }
  })
})

describe("a deployment bundle that cannot be loaded", () => {
  it("stops the gateway at start with the path and the problem", async () => {
    const probe = await startGateway()
    await probe.close()
    const path = join(probe.settings.home, "broken.json")
    writeFileSync(path, JSON.stringify({ v: 1, tools: { allow: "tool.fs.read" } }))
    await expect(startGateway({ home: probe.settings.home, policyBundlePath: path })).rejects.toThrow(
      new RegExp(`deployment policy bundle ${path.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: invalid policy bundle: tools\\.allow: expected an array`)
    )
    await expect(startGateway({ policyBundlePath: join(probe.settings.home, "missing.yaml") })).rejects.toThrow(/missing\.yaml: cannot read the file/)
  })
})

describe("override expiry over HTTP (test clock)", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({}, undefined, { clock: "test" })
  })
  afterAll(() => gw.close())

  it("moves an active override to expired when its expires_at comes", async () => {
    // The test clock starts at the epoch.
    const res = await postJson(gw, "/policy/overrides", { agent_id: "exp", tool_id: "t", pattern: "p", expires_at: "1970-01-01T00:01:00+00:00" }, gw.adminToken)
    expect(res.status).toBe(201)
    const { override } = await readJson(res)
    expect(override.expires_at).toBe("1970-01-01T00:01:00.000Z")
    const status = async () =>
      (await readJson(await gw.fetch(`/policy/overrides?agent_id=exp`, { headers: bearer(gw.adminToken) }))).overrides[0].status
    await gw.run(TestClock.adjust(Duration.seconds(59)))
    expect(await status()).toBe("active")
    await gw.run(TestClock.adjust(Duration.seconds(1)))
    await eventually(async () => (await status()) === "expired", "the override to expire")
    const expired = await readJson(await gw.fetch(`/policy/overrides?status=expired`, { headers: bearer(gw.adminToken) }))
    expect(expired.overrides.map((o: { policy_override_id: string }) => o.policy_override_id)).toEqual([override.policy_override_id])
  })
})
