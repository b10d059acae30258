/**
 * Secrets over HTTP on a real server (gateway-api.md "Secrets";
 * docs/secrets.md), on SQLite and PostgreSQL (when SVC_TEST_DATABASE_URL is
 * set): every route with valid and invalid input, agents, revocation,
 * rotation (and its rollback: 500 with nothing changed), the env provider,
 * device-token scopes, a restart on the same home (file SQLite, same master
 * key), and no stored value in any response or log line of the run.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayConfigLive, StorageMemoryTest } from "../../src/app/gateway.ts"
import { DbSecretProvider } from "../../layers/secrets/dbProvider.ts"
import { storageLayer } from "../../layers/storage/Storage.ts"
import { AuditLog } from "../../services/audit/AuditLog.ts"
import { SecretResolver, Secrets } from "../../services/secrets/SecretStore.ts"
import { SecretsRepo } from "../../services/secrets/SecretsRepo.ts"
import { postgres } from "../support/databases.ts"
import { postJson, readJson, startGateway, type StructuredLog, testSettings, type TestGateway } from "../support/gateway.ts"
import { fakeReferences } from "../services/secrets/support.ts"

/** Every value stored in this file; none may appear in a response or a log. */
const stored: Array<string> = []
const secret = (label: string) => {
  const v = `sv-${label}-${Math.random().toString(36).slice(2)}-Zq9`
  stored.push(v)
  return v
}
/** Every response body read in this file. */
const bodies: Array<string> = []
const logs: Array<StructuredLog> = []

const call = async (gw: TestGateway, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, token = gw.adminToken) => {
  const res = body === undefined
    ? await gw.fetch(path, { method, headers: { authorization: `Bearer ${token}`, ...headers } })
    : method === "POST"
    ? await postJson(gw, path, body, token, headers)
    : await gw.fetch(path, { method, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
  const text = await res.text()
  bodies.push(text)
  return { status: res.status, body: text.length > 0 ? JSON.parse(text) : undefined }
}

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

for (const database of databases) {
  describe(`secrets routes on ${database.name}`, () => {
    let gw: TestGateway
    beforeAll(async () => {
      gw = await startGateway({ rateLimitMax: 10_000 }, database.storage(), { logs })
    })
    afterAll(() => gw.close())

    it("POST /secrets → 201 {handle}; the value is never echoed; GET lists it; the resolver reads it", async () => {
      const value = secret("store")
      const res = await call(gw, "POST", "/secrets", { scope: "webhook:github", value })
      expect(res.status).toBe(201)
      expect(Object.keys(res.body)).toEqual(["handle"])
      expect(res.body.handle).toEqual({
        handle_id: expect.stringMatching(/^sec_[0-9a-f]{32}$/),
        provider: "db",
        scope: "webhook:github",
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/)
      })
      expect((await call(gw, "POST", "/secrets", { scope: "x", value: secret("p"), provider: "db" })).status).toBe(201)
      const list = await call(gw, "GET", "/secrets")
      expect(list.status).toBe(200)
      expect(list.body.handles).toContainEqual(res.body.handle)
      const resolved = await gw.run(Effect.flatMap(SecretResolver, (r) => r.resolve(res.body.handle.handle_id, "test")))
      expect(Redacted.value(resolved)).toBe(value)
    })

    it.each([
      ["no body", undefined, /^body:|request body is empty/],
      ["a missing scope", { value: "v" }, /^scope: missing required field/],
      ["an empty scope", { scope: "", value: "v" }, /^scope:/],
      ["a scope over 256 characters", { scope: "s".repeat(257), value: "v" }, /^scope:/],
      ["a missing value (db provider)", { scope: "x" }, /^value: required by the db secret provider/],
      ["another provider", { scope: "x", value: "v", provider: "env" }, /^provider: "env" is not the configured secret provider \(db\)/]
    ])("POST /secrets with %s → 400", async (_name, body, message) => {
      const res = await call(gw, "POST", "/secrets", body ?? "")
      expect(res.status).toBe(400)
      expect(res.body.error).toBe("invalid_request")
      expect(res.body.message).toMatch(message)
    })

    it("a value that is not a string or is too long → 400 without echoing it", async () => {
      const long = secret("long").padEnd(65_537, "x")
      stored.push(long)
      const tooLong = await call(gw, "POST", "/secrets", { scope: "x", value: long })
      expect(tooLong.status).toBe(400)
      expect(tooLong.body.message).toBe("value: must be at most 65536 characters")
      const notString = await call(gw, "POST", "/secrets", { scope: "x", value: 918273645 })
      expect(notString.status).toBe(400)
      expect(notString.body.message).toBe("value: expected a string")
      expect(JSON.stringify(notString.body)).not.toContain("918273645")
      const rotate = await call(gw, "POST", "/secrets/sec_x/rotate", { value: long })
      expect(rotate.status).toBe(400)
    })

    it("agents: ?agent_id= or x-svc-agent-id selects; invalid or conflicting → 400", async () => {
      const a = await call(gw, "POST", "/secrets?agent_id=agent.7", { scope: "api", value: secret("agent") })
      expect(a.status).toBe(201)
      const b = await call(gw, "POST", "/secrets", { scope: "api", value: secret("agent-h") }, { "x-svc-agent-id": "agent_8" })
      expect(b.status).toBe(201)
      expect((await call(gw, "GET", "/secrets?agent_id=agent.7")).body.handles).toEqual([a.body.handle])
      expect((await call(gw, "GET", "/secrets", undefined, { "x-svc-agent-id": "agent_8" })).body.handles).toEqual([b.body.handle])
      expect((await call(gw, "GET", "/secrets?agent_id=agent.7", undefined, { "x-svc-agent-id": "agent.7" })).body.handles).toEqual([a.body.handle])
      const defaults = (await call(gw, "GET", "/secrets")).body.handles.map((h: any) => h.handle_id)
      expect(defaults).not.toContain(a.body.handle.handle_id)
      for (const [path, headers, message] of [
        ["/secrets?agent_id=bad%20agent", {}, /^agent_id:/],
        [`/secrets?agent_id=${"a".repeat(65)}`, {}, /^agent_id:/],
        ["/secrets", { "x-svc-agent-id": "bad/agent" }, /^x-svc-agent-id:/],
        ["/secrets?agent_id=one", { "x-svc-agent-id": "two" }, /select different agents/]
      ] as const) {
        const res = await call(gw, "GET", path, undefined, headers)
        expect(res.status).toBe(400)
        expect(res.body.message).toMatch(message)
      }
      expect((await call(gw, "POST", "/secrets?agent_id=bad%20agent", { scope: "api", value: secret("bad") })).status).toBe(400)
    })

    it("DELETE /secrets/:id → 200 {revoked: true}, then 404; unknown → 404", async () => {
      const created = await call(gw, "POST", "/secrets", { scope: "del", value: secret("del") })
      const id = created.body.handle.handle_id
      expect(await call(gw, "DELETE", `/secrets/${id}`)).toEqual({ status: 200, body: { revoked: true } })
      expect((await call(gw, "DELETE", `/secrets/${id}`)).status).toBe(404)
      expect((await call(gw, "DELETE", "/secrets/sec_unknown")).status).toBe(404)
      expect((await call(gw, "GET", "/secrets")).body.handles.map((h: any) => h.handle_id)).not.toContain(id)
    })

    it("POST /secrets/:id/rotate → 201 {revoked: true, handle}: the new value resolves, the old handle is gone", async () => {
      const created = await call(gw, "POST", "/secrets", { scope: "rot", value: secret("rot-old") })
      const old = created.body.handle
      const next = secret("rot-new")
      const res = await call(gw, "POST", `/secrets/${old.handle_id}/rotate`, { value: next })
      expect(res.status).toBe(201)
      expect(res.body).toEqual({ revoked: true, handle: { handle_id: expect.stringMatching(/^sec_/), provider: "db", scope: "rot", created_at: expect.any(String) } })
      expect(res.body.handle.handle_id).not.toBe(old.handle_id)
      const ids = (await call(gw, "GET", "/secrets")).body.handles.map((h: any) => h.handle_id)
      expect(ids).toContain(res.body.handle.handle_id)
      expect(ids).not.toContain(old.handle_id)
      expect(Redacted.value(await gw.run(Effect.flatMap(SecretResolver, (r) => r.resolve(res.body.handle.handle_id, "t"))))).toBe(next)
      expect((await call(gw, "POST", `/secrets/${old.handle_id}/rotate`, { value: secret("again") })).status).toBe(404)
      expect((await call(gw, "POST", "/secrets/sec_unknown/rotate", { value: secret("unknown") })).status).toBe(404)
      const missing = await call(gw, "POST", `/secrets/${res.body.handle.handle_id}/rotate`, {})
      expect(missing.status).toBe(400)
      expect(missing.body.message).toMatch(/^value: missing required field/)
    })

    it("device tokens need operator.admin (403 otherwise); no token → 401", async () => {
      const issue = async (scopes: ReadonlyArray<string>) =>
        (await readJson(await postJson(gw, "/auth/device-tokens/issue", { device_id: `dev-${Math.random().toString(36).slice(2)}`, role: "client", scopes }, gw.adminToken))).token as string
      const reader = await issue(["operator.read", "operator.write", "operator.approvals"])
      for (const [method, path, body] of [
        ["GET", "/secrets", undefined],
        ["POST", "/secrets", { scope: "x", value: "v" }],
        ["DELETE", "/secrets/sec_x", undefined],
        ["POST", "/secrets/sec_x/rotate", { value: "v" }]
      ] as const) {
        const res = await call(gw, method, path, body, {}, reader)
        expect([method, path, res.status]).toEqual([method, path, 403])
        expect(res.body.error).toBe("forbidden")
      }
      const admin = await issue(["operator.admin"])
      expect((await call(gw, "GET", "/secrets", undefined, {}, admin)).status).toBe(200)
      expect((await gw.fetch("/secrets")).status).toBe(401)
    })
  })
}

describe("rotation whose propagation fails", () => {
  it("answers 500 and changes nothing: the old handle is still active, the new one does not exist", async () => {
    const settings = testSettings()
    const failing = fakeReferences({ failRepoint: true })
    // The HTTP routes get a Secrets service whose SecretReferences fails to repoint (fresh: layers are memoized
    // by identity, and the gateway's own graph builds Secrets.layerNoDeps too).
    const override = Secrets.layerNoDeps.pipe(
      Layer.fresh,
      Layer.provideMerge(SecretsRepo.layer),
      Layer.provide(DbSecretProvider),
      Layer.provide(failing.layer),
      Layer.provide(AuditLog.layer),
      Layer.provide(StorageMemoryTest),
      Layer.provide(GatewayConfigLive(settings)),
      Layer.orDie
    )
    const gw = await startGateway({ home: settings.home }, StorageMemoryTest, { override, logs })
    try {
      const created = await call(gw, "POST", "/secrets", { scope: "rot", value: secret("fail-old") })
      const old = created.body.handle
      const res = await call(gw, "POST", `/secrets/${old.handle_id}/rotate`, { value: secret("fail-new") })
      expect(res).toEqual({ status: 500, body: { error: "internal", message: "rotation propagation failed; nothing was changed" } })
      expect((await call(gw, "GET", "/secrets")).body.handles).toEqual([old])
      expect(failing.calls).toHaveLength(1)
      expect((await call(gw, "DELETE", `/secrets/${failing.calls[0][2]}`)).status).toBe(404)
    } finally {
      await gw.close()
    }
  })
})

describe("the env provider", () => {
  it("takes a scope naming an environment variable, no value, and refuses rotation with 400", async () => {
    const gw = await startGateway({ secretProvider: "env" }, StorageMemoryTest, { logs })
    try {
      process.env.SVC_TEST_SECRET_FROM_ENV = secret("env")
      const created = await call(gw, "POST", "/secrets", { scope: "SVC_TEST_SECRET_FROM_ENV" })
      expect(created.status).toBe(201)
      expect(created.body.handle.provider).toBe("env")
      expect(Redacted.value(await gw.run(Effect.flatMap(SecretResolver, (r) => r.resolve(created.body.handle.handle_id, "t"))))).toBe(process.env.SVC_TEST_SECRET_FROM_ENV)
      const withValue = await call(gw, "POST", "/secrets", { scope: "SVC_X", value: secret("env-v") })
      expect(withValue.status).toBe(400)
      expect((await call(gw, "POST", "/secrets", { scope: "not a name" })).status).toBe(400)
      expect((await call(gw, "POST", "/secrets", { scope: "SVC_X", provider: "db" })).status).toBe(400)
      const rotate = await call(gw, "POST", `/secrets/${created.body.handle.handle_id}/rotate`, { value: secret("env-rot") })
      expect(rotate.status).toBe(400)
      expect(rotate.body.message).toMatch(/cannot be rotated: change the environment variable SVC_TEST_SECRET_FROM_ENV instead/)
      expect((await call(gw, "DELETE", `/secrets/${created.body.handle.handle_id}`)).status).toBe(200)
    } finally {
      delete process.env.SVC_TEST_SECRET_FROM_ENV
      await gw.close()
    }
  })
})

describe("a restart on the same home (file SQLite, same master key)", () => {
  it("keeps every secret readable", async () => {
    const home = mkdtempSync(join(tmpdir(), "svc-secrets-restart-"))
    const storage = () => storageLayer({ kind: "sqlite", filename: join(home, "gateway.db") })
    const values = [secret("restart-1"), secret("restart-2")]
    const first = await startGateway({ home }, storage(), { logs })
    const ids: Array<string> = []
    try {
      for (const value of values) ids.push((await call(first, "POST", "/secrets", { scope: "r", value })).body.handle.handle_id)
      const rotated = await call(first, "POST", `/secrets/${ids[1]}/rotate`, { value: (values[1] = secret("restart-3")) })
      ids[1] = rotated.body.handle.handle_id
    } finally {
      await first.close()
    }
    const second = await startGateway({ home }, storage(), { logs })
    try {
      expect((await call(second, "GET", "/secrets")).body.handles.map((h: any) => h.handle_id).sort()).toEqual([...ids].sort())
      for (const [i, id] of ids.entries()) {
        expect(Redacted.value(await second.run(Effect.flatMap(SecretResolver, (r) => r.resolve(id, "restart"))))).toBe(values[i])
      }
    } finally {
      await second.close()
    }
  })
})

describe("nothing secret leaks", () => {
  it("no stored value appears in any response body or log entry of this file's run", () => {
    expect(stored.length).toBeGreaterThan(10)
    expect(logs.length).toBeGreaterThan(0)
    const logText = JSON.stringify(logs)
    expect(logText).toContain("secret stored")
    const responses = bodies.join("\n")
    for (const value of stored) {
      expect(logText.includes(value.slice(0, 30))).toBe(false)
      expect(responses.includes(value.slice(0, 30))).toBe(false)
    }
  })
})
