/**
 * The routing configuration over HTTP on a real server (gateway-api.md
 * "Routing configuration"; reference §7.2; docs/routing.md), on SQLite and
 * PostgreSQL (when SVC_TEST_DATABASE_URL is set): the empty state,
 * revisions and revert, 404 and 400s naming the field (nothing stored),
 * a corrupt stored row (500 corrupt_state), `routing.config.updated` to
 * operator.admin WS clients only, device-token scopes, concurrent PUTs, the
 * thread → agent lookup, and no routes with SVC_AUTH=off.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { canonicalSha256 } from "../../services/shared/canonicalJson.ts"
import { RoutingConfigService } from "../../services/routing/RoutingConfigService.ts"
import { postgres } from "../support/databases.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

/** Long WS keep-alive periods, so moving the test clock never closes a peer. */
const QUIET_WS = { rateLimitMax: 10_000, wsPingIntervalMs: 3_600_000, wsPongTimeoutMs: 7_200_000 }

const call = async (gw: TestGateway, method: string, path: string, body?: unknown, token = gw.adminToken) => {
  const res = await gw.fetch(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {})
  })
  const text = await res.text()
  return { status: res.status, body: text.length > 0 ? JSON.parse(text) : undefined }
}
const getConfig = (gw: TestGateway, token?: string) => call(gw, "GET", "/routing/config", undefined, token)
const put = (gw: TestGateway, body: unknown, token?: string) => call(gw, "PUT", "/routing/config", body, token)
const revert = (gw: TestGateway, body: unknown, token?: string) => call(gw, "POST", "/routing/config/revert", body, token)

const issue = async (gw: TestGateway, scopes: ReadonlyArray<string>, device_id = `dev-${Math.random().toString(36).slice(2)}`) => {
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id, role: "client", scopes }, gw.adminToken)
  expect(res.status).toBe(201)
  return (await readJson(res)) as { token: string; token_id: string; device_id: string }
}

const CONFIG_1 = { v: 1, messenger: { threads: { "chat-42": "support.bot", "-100777:3": "ops" }, default_agent_id: "main" } }
const CONFIG_2 = { v: 1, messenger: { default_agent_id: "other" } }
/** `config_sha256` of CONFIG_1, pinned as computed before issue 21 (sha256 of its canonical JSON). */
const CONFIG_1_SHA256 = "863315ea90ae4a46737cfb7093525edddfc76ef081725af649d4dade9b17e430"

for (const database of databases) {
  describe(`routing config on ${database.name}`, () => {
    let gw: TestGateway
    beforeAll(async () => {
      gw = await startGateway(QUIET_WS, database.storage(), { clock: "test" })
    })
    afterAll(() => gw.close())

    it("revisions, latest, revert, event and lookup", async () => {
      const admin = await connectPeer(gw.url, gw.adminToken)
      const readerIdentity = makeIdentity()
      const reader = await connectPeer(gw.url, (await issue(gw, ["operator.read", "operator.write"], readerIdentity.deviceId)).token, {
        identity: readerIdentity
      })
      const updated = () => admin.peer.next((m) => m.type === "routing.config.updated")

      // Nothing stored yet.
      expect(await getConfig(gw)).toEqual({ status: 200, body: { revision: 0, config: { v: 1 } } })
      expect(await gw.run(Effect.flatMap(RoutingConfigService, (r) => r.agentFor("chat-42")))).toBe("default")

      // Revision 1, with a reason.
      await gw.run(TestClock.adjust("1 second"))
      const first = await put(gw, { config: CONFIG_1, reason: "initial routing" })
      expect(first.status).toBe(201)
      expect(first.body).toEqual({
        revision: 1,
        config: CONFIG_1,
        created_at: "1970-01-01T00:00:01.000Z",
        created_by: { kind: "admin" },
        reason: "initial routing"
      })
      // Answered in canonical key order, as GET answers it later.
      expect(Object.keys(first.body.config)).toEqual(["messenger", "v"])
      expect(Object.keys(first.body.config.messenger.threads)).toEqual(["-100777:3", "chat-42"])
      const event1 = await updated()
      expect(event1.payload).toEqual({ revision: 1, reason: "initial routing", config_sha256: CONFIG_1_SHA256 })
      expect(event1.payload.config_sha256).toMatch(/^[0-9a-f]{64}$/)
      expect(event1.scope).toBeUndefined()

      // Revision 2, without a reason: no reason key anywhere.
      await gw.run(TestClock.adjust("1 second"))
      const second = await put(gw, { config: CONFIG_2 })
      expect(second).toEqual({
        status: 201,
        body: { revision: 2, config: CONFIG_2, created_at: "1970-01-01T00:00:02.000Z", created_by: { kind: "admin" } }
      })
      expect((await updated()).payload).toEqual({ revision: 2, config_sha256: canonicalSha256(CONFIG_2) })
      expect(await getConfig(gw)).toEqual({ status: 200, body: second.body })

      // Lookup follows the revision in force.
      const agentFor = (thread: string) => gw.run(Effect.flatMap(RoutingConfigService, (r) => r.agentFor(thread)))
      expect(await agentFor("chat-42")).toBe("other")

      // Revert to 1: revision 3 copies 1's configuration.
      await gw.run(TestClock.adjust("1 second"))
      const third = await revert(gw, { revision: 1, reason: "roll back" })
      expect(third).toEqual({
        status: 201,
        body: {
          revision: 3,
          config: CONFIG_1,
          created_at: "1970-01-01T00:00:03.000Z",
          created_by: { kind: "admin" },
          reason: "roll back",
          reverted_from_revision: 1
        }
      })
      expect((await updated()).payload).toEqual({
        revision: 3,
        reason: "roll back",
        config_sha256: CONFIG_1_SHA256,
        reverted_from_revision: 1
      })
      expect(await getConfig(gw)).toEqual({ status: 200, body: third.body })
      expect(await agentFor("chat-42")).toBe("support.bot")
      expect(await agentFor("-100777:3")).toBe("ops")
      expect(await agentFor("chat-43")).toBe("main")

      // The operator.read client is not in the audience: its ping answer comes after any event it could have got.
      expect((await reader.peer.request("ping", {})).ok).toBe(true)
      await expect(reader.peer.next((m) => m.type === "routing.config.updated", 0)).rejects.toThrow(/timed out/)
      admin.peer.ws.close()
      reader.peer.ws.close()
    })

    it("revert of an unknown revision → 404; a bad revert body → 400; nothing is stored", async () => {
      const before = await getConfig(gw)
      const missing = await revert(gw, { revision: 9999 })
      expect(missing).toEqual({ status: 404, body: { error: "not_found", message: "routing config revision 9999 not found" } })
      for (const [body, message] of [
        [{}, /^revision: missing required field/],
        [{ revision: 0 }, /^revision: expected a positive integer/],
        [{ revision: 1.5 }, /^revision: /],
        [{ revision: "1" }, /^revision: /],
        [{ revision: 1, reason: 5 }, /^reason: /],
        ["{", /^malformed JSON/],
        ["", /request body is empty/]
      ] as const) {
        const res = await revert(gw, body)
        expect([body, res.status, res.body.error]).toEqual([body, 400, "invalid_request"])
        expect(res.body.message).toMatch(message)
      }
      expect(await getConfig(gw)).toEqual(before)
    })

    it.each([
      ["v ≠ 1", { config: { v: 2 } }, "config.v: expected 1, got 2"],
      ["a missing config", {}, "config: missing required field"],
      ["an unknown top-level key", { config: { v: 1, telegram: {} } }, "config.telegram: unexpected field"],
      ["an unknown messenger key", { config: { v: 1, messenger: { agents: {} } } }, "config.messenger.agents: unexpected field"],
      ["a bad default agent id", { config: { v: 1, messenger: { default_agent_id: "no spaces" } } }, /^config\.messenger\.default_agent_id: expected an agent id/],
      ["a bad thread agent id", { config: { v: 1, messenger: { threads: { t: "a/b" } } } }, /^config\.messenger\.threads\.t: expected an agent id/],
      ["an empty thread id", { config: { v: 1, messenger: { threads: { "": "a" } } } }, /^config\.messenger\.threads: expected thread ids/],
      ["a reason over 1024 characters", { config: { v: 1 }, reason: "r".repeat(1025) }, /^reason: expected at most 1024 characters/]
    ])("PUT with %s → 400 naming the field; nothing stored", async (_name, body, message) => {
      const before = await getConfig(gw)
      const res = await put(gw, body)
      expect(res.status).toBe(400)
      expect(res.body.error).toBe("invalid_request")
      if (typeof message === "string") expect(res.body.message).toBe(message)
      else expect(res.body.message).toMatch(message)
      expect(await getConfig(gw)).toEqual(before)
    })

    it("device tokens: operator.read or write → 403; operator.admin → 201 attributed to the token id", async () => {
      const { token: plain } = await issue(gw, ["operator.read", "operator.write", "operator.approvals", "operator.pairing"])
      for (const res of [await getConfig(gw, plain), await put(gw, { config: { v: 1 } }, plain), await revert(gw, { revision: 1 }, plain)]) {
        expect(res.status).toBe(403)
        expect(res.body.error).toBe("forbidden")
      }
      const adminDevice = await issue(gw, ["operator.admin"])
      expect((await getConfig(gw, adminDevice.token)).status).toBe(200)
      const res = await put(gw, { config: { v: 1 }, reason: "from a device" }, adminDevice.token)
      expect(res.status).toBe(201)
      expect(res.body.created_by).toEqual({ kind: "device", token_id: adminDevice.token_id, device_id: adminDevice.device_id })
      expect(JSON.stringify(res.body)).not.toContain(adminDevice.token)
      const reverted = await revert(gw, { revision: 1 }, adminDevice.token)
      expect(reverted.status).toBe(201)
      expect(reverted.body.created_by).toEqual(res.body.created_by)
      expect(await getConfig(gw)).toEqual({ status: 200, body: reverted.body })
    })

    it("concurrent PUTs get distinct, consecutive revisions", async () => {
      const start = (await getConfig(gw)).body.revision as number
      const n = 8
      const results = await Promise.all(
        Array.from({ length: n }, (_, i) => put(gw, { config: { v: 1, messenger: { default_agent_id: `agent-${i}` } }, reason: `parallel ${i}` }))
      )
      expect(results.map((r) => r.status)).toEqual(Array(n).fill(201))
      const revisions = results.map((r) => r.body.revision as number).sort((a, b) => a - b)
      expect(revisions).toEqual(Array.from({ length: n }, (_, i) => start + 1 + i))
      // Each response is the revision it created, and the latest is the highest one.
      for (const r of results) expect(r.body.reason).toBe(`parallel ${r.body.config.messenger.default_agent_id.slice(6)}`)
      const latest = await getConfig(gw)
      expect(latest.body).toEqual(results.find((r) => r.body.revision === start + n)!.body)
    })
  })

  describe(`corrupt stored state on ${database.name}`, () => {
    let gw: TestGateway
    beforeAll(async () => {
      gw = await startGateway({ rateLimitMax: 10_000 }, database.storage())
    })
    afterAll(() => gw.close())

    const insertRaw = (configJson: string) =>
      gw.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`INSERT INTO routing_configs (config_json, created_at, created_by_json) VALUES (${configJson}, ${"2026-01-01T00:00:00.000Z"}, ${"{\"kind\":\"admin\"}"})`))

    it("a row that does not decode → 500 corrupt_state for GET, the lookup and a revert to it; a new PUT recovers", async () => {
      expect((await put(gw, { config: CONFIG_2 })).status).toBe(201)
      await insertRaw("this is not json {")
      const res = await getConfig(gw)
      expect(res.status).toBe(500)
      expect(res.body.error).toBe("corrupt_state")
      expect(res.body.message).toMatch(/^stored routing config revision 2 does not decode: config_json: malformed JSON/)
      expect(res.body.message).not.toContain("this is not json")
      const lookup = await gw.run(Effect.flip(Effect.flatMap(RoutingConfigService, (r) => r.agentFor("t"))))
      expect(lookup._tag).toBe("CorruptState")

      const copied = await revert(gw, { revision: 2 })
      expect(copied.status).toBe(500)
      expect(copied.body.error).toBe("corrupt_state")

      await insertRaw("{\"v\":1,\"extra\":true}")
      const strict = await getConfig(gw)
      expect(strict.status).toBe(500)
      expect(strict.body).toEqual({
        error: "corrupt_state",
        message: "stored routing config revision 3 does not decode: config_json.extra: unexpected field"
      })

      // A good revision on top is in force again; reverting to a good one still works.
      const fixed = await put(gw, { config: { v: 1 }, reason: "repair" })
      expect(fixed.status).toBe(201)
      expect(fixed.body.revision).toBe(4)
      expect(await getConfig(gw)).toEqual({ status: 200, body: fixed.body })
      const back = await revert(gw, { revision: 1 })
      expect(back.status).toBe(201)
      expect(back.body).toMatchObject({ revision: 5, config: CONFIG_2, reverted_from_revision: 1 })
    })
  })
}

describe("routing config with SVC_AUTH=off", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ authEnabled: false })
  })
  afterAll(() => gw.close())

  it("the routes are not served (404), though the service still answers in-process", async () => {
    for (const [method, path, body] of [
      ["GET", "/routing/config", undefined],
      ["PUT", "/routing/config", { config: { v: 1 } }],
      ["POST", "/routing/config/revert", { revision: 1 }]
    ] as const) {
      const res = await gw.fetch(path, {
        method,
        ...(body !== undefined ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {})
      })
      expect([method, path, res.status]).toEqual([method, path, 404])
      expect((await readJson(res)).error).toBe("not_found")
    }
    expect(await gw.run(Effect.flatMap(RoutingConfigService, (r) => r.agentFor("t")))).toBe("default")
  })
})
