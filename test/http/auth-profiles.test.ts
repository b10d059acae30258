/**
 * Auth profiles and session pins over HTTP on a real server, on SQLite and
 * PostgreSQL (gateway-api.md "Auth profiles and session pins"; docs/auth-profiles.md):
 * every route with valid and invalid input, the transitions, pins, scope
 * checks (operator.admin), and `SVC_AUTH_PROFILES=off`. The secret store is an
 * in-memory stand-in supplied through the gateway's `override` (the
 * transports' `AuthProfiles` is built over it and the gateway's own storage).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { AuthProfiles } from "../../services/auth-profiles/AuthProfiles.ts"
import { AuthProfilesRepo } from "../../services/auth-profiles/AuthProfilesRepo.ts"
import { testDatabases } from "../support/databases.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { makeIdentity } from "../support/wsPeer.ts"
import { makeFakeSecrets } from "../services/auth-profiles/support.ts"

const secrets = makeFakeSecrets()
for (const h of ["h-key-1", "h-key-2", "h-access", "h-refresh"]) secrets.add(h)
// Fresh: the gateway's own row builds `layerNoDeps` over its secret store, and layers are memoized by value.
const withFakeSecrets = Layer.fresh(AuthProfiles.layerNoDeps).pipe(
  Layer.provide(AuthProfilesRepo.layer),
  Layer.provide(secrets.layer)
) as unknown as Layer.Layer<any, never, never>

for (const db of testDatabases) {
  describe(`auth profiles over HTTP on ${db.name}`, () => {
    let gw: TestGateway
    beforeAll(async () => {
      gw = await startGateway({ rateLimitMax: 10_000 }, db.make(), { override: withFakeSecrets })
    })
    afterAll(() => gw.close())

    const auth = (token = gw.adminToken) => ({ authorization: `Bearer ${token}` })
    const get = (path: string, token?: string) => gw.fetch(path, { headers: auth(token) })
    const post = (path: string, body: unknown, token = gw.adminToken) => postJson(gw, path, body, token)
    const patch = (path: string, body: unknown, token = gw.adminToken) =>
      gw.fetch(path, { method: "PATCH", headers: { ...auth(token), "content-type": "application/json" }, body: JSON.stringify(body) })
    const expect400 = async (res: Response, message: RegExp) => {
      expect(res.status).toBe(400)
      const body = await readJson(res)
      expect(body.error).toBe("invalid_request")
      expect(body.message).toMatch(message)
    }
    const create = async (body: Record<string, unknown>) => {
      const res = await post("/auth/profiles", body)
      expect(res.status).toBe(201)
      return (await readJson(res)).profile
    }

    it("POST /auth/profiles creates (201 {profile}); invalid input and unknown handles are 400 naming the field", async () => {
      const profile = await create({
        agent_id: "agent-1",
        provider: "openai",
        type: "api_key",
        secret_handles: { api_key: "h-key-1" },
        labels: { team: "core" }
      })
      expect(Object.keys(profile).sort()).toEqual(
        ["agent_id", "auth_profile_id", "created_at", "labels", "provider", "secret_handles", "status", "type", "updated_at"]
      )
      expect(profile).toMatchObject({ agent_id: "agent-1", provider: "openai", status: "active", secret_handles: { api_key: "h-key-1" } })
      expect(JSON.stringify(profile)).not.toContain("value-of")

      await expect400(await post("/auth/profiles", { provider: "openai", type: "api_key", secret_handles: { api_key: "nope" } }), /^secret_handles\.api_key: secret handle nope not found/)
      await expect400(await post("/auth/profiles", { provider: "openai", type: "oauth", secret_handles: { api_key: "h-key-1" } }), /^secret_handles\.access_token: required/)
      await expect400(await post("/auth/profiles", { provider: "openai", type: "password", secret_handles: {} }), /type/)
      await expect400(await post("/auth/profiles", { type: "api_key", secret_handles: { api_key: "h-key-1" } }), /provider/)
      await expect400(await post("/auth/profiles", { provider: "", type: "api_key", secret_handles: { api_key: "h-key-1" } }), /provider/)
      await expect400(await post("/auth/profiles", { agent_id: "bad agent!", provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } }), /agent_id/)
      await expect400(await post("/auth/profiles", { agent_id: "a".repeat(65), provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } }), /agent_id/)
      await expect400(await post("/auth/profiles", { provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" }, labels: { k: 1 } }), /labels/)
      const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]))
      await expect400(await post("/auth/profiles", { provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" }, labels: many }), /labels/)
      // A bad key is an error, never silently dropped.
      await expect400(await post("/auth/profiles", { provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" }, labels: { "": "x" } }), /labels/)
      await expect400(await post("/auth/profiles", { provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" }, labels: { ["k".repeat(65)]: "x" } }), /labels/)
      await expect400(await post("/auth/profiles", "{nope", gw.adminToken), /malformed JSON/)
    })

    it("GET /auth/profiles lists with filters; an invalid filter is 400", async () => {
      const a = await create({ agent_id: "lister", provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } })
      const b = await create({ agent_id: "lister", provider: "anthropic", type: "token", secret_handles: { access_token: "h-access" } })
      const all = (await readJson(await get("/auth/profiles?agent_id=lister"))).profiles
      expect(all.map((p: any) => p.auth_profile_id).sort()).toEqual([a.auth_profile_id, b.auth_profile_id].sort())
      expect((await readJson(await get("/auth/profiles?agent_id=lister&provider=anthropic"))).profiles).toEqual([b])
      expect((await readJson(await get("/auth/profiles?agent_id=lister&status=disabled"))).profiles).toEqual([])
      await expect400(await get("/auth/profiles?status=gone"), /status: expected one of active, disabled/)
      await expect400(await get("/auth/profiles?agent_id=bad%20id"), /agent_id/)
    })

    it("PATCH /auth/profiles/:id updates (200 {status, profile}); 404 unknown; 400 invalid", async () => {
      const p = await create({ agent_id: "patcher", provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } })
      const res = await patch(`/auth/profiles/${p.auth_profile_id}`, { labels: { env: "prod" }, secret_handles: { api_key: "h-key-2" } })
      expect(res.status).toBe(200)
      const body = await readJson(res)
      expect(body).toEqual({ status: "ok", profile: { ...body.profile, labels: { env: "prod" }, secret_handles: { api_key: "h-key-2" } } })
      expect(body.profile.auth_profile_id).toBe(p.auth_profile_id)
      expect((await patch("/auth/profiles/ap_unknown", { labels: {} })).status).toBe(404)
      await expect400(await patch(`/auth/profiles/${p.auth_profile_id}`, {}), /nothing to update/)
      await expect400(await patch(`/auth/profiles/${p.auth_profile_id}`, { secret_handles: { api_key: "nope" } }), /secret_handles\.api_key/)
      await expect400(await patch(`/auth/profiles/${p.auth_profile_id}`, { labels: "x" }), /labels/)
    })

    it("disable and enable follow the transitions (200 {status, profile}); 404 unknown; 400 invalid", async () => {
      const p = await create({ agent_id: "toggler", provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } })
      const disabled = await readJson(await post(`/auth/profiles/${p.auth_profile_id}/disable`, { reason: "rotating" }))
      expect(disabled).toMatchObject({ status: "ok", profile: { status: "disabled", disabled_reason: "rotating" } })
      const again = await post(`/auth/profiles/${p.auth_profile_id}/disable`, {})
      expect(again.status).toBe(200)
      expect((await readJson(again)).profile).toEqual(disabled.profile)
      const enabled = await readJson(await post(`/auth/profiles/${p.auth_profile_id}/enable`, {}))
      expect(enabled.status).toBe("ok")
      expect(enabled.profile.status).toBe("active")
      expect(enabled.profile.disabled_reason).toBeUndefined()
      expect((await readJson(await get("/auth/profiles?agent_id=toggler&status=active"))).profiles).toEqual([enabled.profile])
      for (const action of ["disable", "enable"]) {
        const res = await post(`/auth/profiles/ap_unknown/${action}`, {})
        expect(res.status).toBe(404)
        expect((await readJson(res)).error).toBe("not_found")
      }
      await expect400(await post(`/auth/profiles/${p.auth_profile_id}/disable`, { reason: "x".repeat(501) }), /reason/)
      await expect400(await post(`/auth/profiles/${p.auth_profile_id}/disable`, { reason: 5 }), /reason/)
    })

    it("POST /auth/pins sets (201), replaces, clears (200 {cleared}); GET /auth/pins filters; bad pins are 400", async () => {
      const a = await create({ agent_id: "pinner", provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } })
      const b = await create({ agent_id: "pinner", provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-2" } })
      const set = await post("/auth/pins", { agent_id: "pinner", session_id: "s1", provider: "openai", profile_id: a.auth_profile_id })
      expect(set.status).toBe(201)
      const pin = (await readJson(set)).pin
      expect(pin).toMatchObject({ agent_id: "pinner", session_id: "s1", provider: "openai", auth_profile_id: a.auth_profile_id })
      const replaced = await post("/auth/pins", { agent_id: "pinner", session_id: "s1", provider: "openai", profile_id: b.auth_profile_id })
      expect(replaced.status).toBe(201)
      const listed = (await readJson(await get("/auth/pins?agent_id=pinner"))).pins
      expect(listed).toEqual([(await readJson(replaced)).pin])
      expect((await readJson(await get("/auth/pins?agent_id=pinner&session_id=s2"))).pins).toEqual([])

      // The agent runtime's selection sees the pin.
      const selected = await gw.run(Effect.flatMap(AuthProfiles, (p) => p.select("pinner", "s1", "openai")))
      expect(selected?.profile.auth_profile_id).toBe(b.auth_profile_id)
      expect(Redacted.value(selected!.credential)).toBe("value-of-h-key-2")

      await post(`/auth/profiles/${a.auth_profile_id}/disable`, {})
      await expect400(await post("/auth/pins", { agent_id: "pinner", session_id: "s1", provider: "openai", profile_id: a.auth_profile_id }), /^profile_id: .* is disabled/)
      await expect400(await post("/auth/pins", { agent_id: "pinner", session_id: "s1", provider: "openai", profile_id: "ap_none" }), /^profile_id: .* not found/)
      await expect400(await post("/auth/pins", { agent_id: "pinner", session_id: "s1", provider: "anthropic", profile_id: b.auth_profile_id }), /^profile_id: .* belongs to/)
      await expect400(await post("/auth/pins", { agent_id: "pinner", provider: "openai", profile_id: b.auth_profile_id }), /session_id/)
      await expect400(await post("/auth/pins", { agent_id: "pinner", session_id: "s1", provider: "openai" }), /profile_id/)
      await expect400(await get("/auth/pins?agent_id=%20"), /agent_id/)

      const cleared = await post("/auth/pins", { agent_id: "pinner", session_id: "s1", provider: "openai", profile_id: null })
      expect(cleared.status).toBe(200)
      expect(await readJson(cleared)).toEqual({ status: "ok", cleared: true })
      expect(await readJson(await post("/auth/pins", { agent_id: "pinner", session_id: "s1", provider: "openai", profile_id: null })))
        .toEqual({ status: "ok", cleared: false })
      expect((await readJson(await get("/auth/pins?agent_id=pinner"))).pins).toEqual([])
    })

    it("device tokens need operator.admin (403 otherwise); no token is 401", async () => {
      const issue = async (scopes: ReadonlyArray<string>) => {
        const res = await post("/auth/device-tokens/issue", { device_id: makeIdentity().deviceId, role: "client", scopes })
        return (await readJson(res)).token as string
      }
      const reader = await issue(["operator.read", "operator.write"])
      const admin = await issue(["operator.admin"])
      const routes: ReadonlyArray<readonly [string, string, unknown]> = [
        ["GET", "/auth/profiles", undefined],
        ["POST", "/auth/profiles", { provider: "openai", type: "api_key", secret_handles: { api_key: "h-key-1" } }],
        ["PATCH", "/auth/profiles/ap_x", { labels: {} }],
        ["POST", "/auth/profiles/ap_x/disable", {}],
        ["POST", "/auth/profiles/ap_x/enable", {}],
        ["GET", "/auth/pins", undefined],
        ["POST", "/auth/pins", { session_id: "s", provider: "p", profile_id: null }]
      ]
      for (const [method, path, body] of routes) {
        const call = (token?: string) =>
          gw.fetch(path, {
            method,
            headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
            ...(body !== undefined ? { body: JSON.stringify(body) } : {})
          })
        expect((await call(reader)).status, `${method} ${path}`).toBe(403)
        expect((await call()).status, `${method} ${path}`).toBe(401)
        expect([200, 201, 404], `${method} ${path}`).toContain((await call(admin)).status)
      }
    })
  })
}

describe("SVC_AUTH_PROFILES", () => {
  it("off: every auth-profile route answers 404 not_found (after authorization)", async () => {
    const gw = await startGateway({ authProfilesEnabled: false })
    try {
      for (const [method, path] of [["GET", "/auth/profiles"], ["POST", "/auth/profiles"], ["PATCH", "/auth/profiles/ap_x"], ["POST", "/auth/profiles/ap_x/disable"], ["POST", "/auth/profiles/ap_x/enable"], ["GET", "/auth/pins"], ["POST", "/auth/pins"]] as const) {
        const res = await gw.fetch(path, {
          method,
          headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
            ...(method === "GET" ? {} : { body: "{malformed" })
        })
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(await readJson(res)).toEqual({ error: "not_found", message: "route not found" })
      }
      expect((await gw.fetch("/auth/profiles")).status).toBe(401)
    } finally {
      await gw.close()
    }
  })

  it("on by default: the routes are served (without a secret provider no handle exists, so creating is 400)", async () => {
    const gw = await startGateway()
    try {
      expect(gw.settings.authProfilesEnabled).toBe(true)
      const res = await gw.fetch("/auth/profiles", { headers: { authorization: `Bearer ${gw.adminToken}` } })
      expect(res.status).toBe(200)
      expect(await readJson(res)).toEqual({ profiles: [] })
      const created = await postJson(gw, "/auth/profiles", { provider: "openai", type: "api_key", secret_handles: { api_key: "h" } }, gw.adminToken)
      expect(created.status).toBe(400)
    } finally {
      await gw.close()
    }
  })
})
