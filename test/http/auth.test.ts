/**
 * The authentication and authorization matrix on a real server
 * (gateway-api.md "Authentication"; reference §2.4–2.6, §9.3).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 1000 })
})
afterAll(() => gw.close())

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

const issue = async (scopes: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => {
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: "dev-1", role: "client", scopes, ...extra }, gw.adminToken)
  expect(res.status).toBe(201)
  return readJson(res)
}

const policyBody = { spend: { amount_minor_units: 1, currency: "USD" }, pii: { categories: [] }, legal: { flags: [] } }

describe("authentication", () => {
  it("keeps /healthz public", async () => {
    const res = await gw.fetch("/healthz")
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual({ status: "ok", is_exposed: false })
  })

  it.each([
    ["no credentials", {}],
    ["an unknown bearer token", bearer("invalid")],
    ["Basic auth", { authorization: "Basic abc123" }],
    ["an empty bearer", { authorization: "Bearer " }],
    ["a lowercase scheme", { authorization: `bearer ${"a".repeat(32)}${"b".repeat(32)}` }]
  ])("refuses %s with 401 unauthorized", async (_name, headers) => {
    const res = await gw.fetch("/openapi.json", { headers: headers as Record<string, string> })
    expect(res.status).toBe(401)
    const body = await readJson(res)
    expect(body.error).toBe("unauthorized")
    expect(typeof body.message).toBe("string")
  })

  it("answers 401 before 404 for unknown routes", async () => {
    expect((await gw.fetch("/no/such/route")).status).toBe(401)
    const res = await gw.fetch("/no/such/route", { headers: bearer(gw.adminToken) })
    expect(res.status).toBe(404)
    expect(await readJson(res)).toEqual({ error: "not_found", message: "route not found" })
  })

  it("ignores tokens in the query string", async () => {
    expect((await gw.fetch(`/openapi.json?token=${gw.adminToken}`)).status).toBe(401)
  })

  it("accepts the admin token as bearer and as the svc_admin_token cookie", async () => {
    expect((await gw.fetch("/openapi.json", { headers: bearer(gw.adminToken) })).status).toBe(200)
    expect((await gw.fetch("/openapi.json", { headers: { cookie: `svc_admin_token=${gw.adminToken}` } })).status).toBe(200)
  })

  it("prefers the bearer header over the cookie", async () => {
    const res = await gw.fetch("/openapi.json", {
      headers: { ...bearer("wrong"), cookie: `svc_admin_token=${gw.adminToken}` }
    })
    expect(res.status).toBe(401)
  })
})

describe("cookie session", () => {
  it("sets an HttpOnly SameSite=Strict cookie that authorises, and logout clears it", async () => {
    const res = await postJson(gw, "/auth/session", { token: gw.adminToken })
    expect(res.status).toBe(204)
    const cookie = res.headers.get("set-cookie") ?? ""
    expect(cookie).toContain(`svc_admin_token=${gw.adminToken}`)
    expect(cookie).toMatch(/HttpOnly/i)
    expect(cookie).toMatch(/SameSite=Strict/i)
    expect(cookie).toMatch(/Path=\//)
    expect(cookie).not.toMatch(/Secure/)
    const pair = cookie.split(";")[0]
    expect((await gw.fetch("/openapi.json", { headers: { cookie: pair } })).status).toBe(200)

    const out = await gw.fetch("/auth/logout", { method: "POST" })
    expect(out.status).toBe(204)
    const cleared = out.headers.get("set-cookie") ?? ""
    expect(cleared).toMatch(/^svc_admin_token=;/)
    expect(cleared).toMatch(/Max-Age=0|Expires=Thu, 01 Jan 1970/i)
    const clearedPair = cleared.split(";")[0]
    expect((await gw.fetch("/openapi.json", { headers: { cookie: clearedPair } })).status).toBe(401)
  })

  it("marks the cookie Secure when served over https (x-forwarded-proto)", async () => {
    const res = await postJson(gw, "/auth/session", { token: gw.adminToken }, undefined, { "x-forwarded-proto": "https" })
    expect(res.headers.get("set-cookie")).toMatch(/Secure/)
  })

  it.each([
    ["invalid JSON", "{", 400, "invalid_request"],
    ["a missing token", "{}", 400, "invalid_request"],
    ["a blank token", JSON.stringify({ token: "  " }), 400, "invalid_request"],
    ["an invalid token", JSON.stringify({ token: "nope" }), 401, "unauthorized"]
  ])("rejects %s", async (_name, body, status, error) => {
    const res = await postJson(gw, "/auth/session", body)
    expect(res.status).toBe(status)
    expect((await readJson(res)).error).toBe(error)
  })

  it("accepts a valid device token as the session token", async () => {
    const { token } = await issue(["operator.read"])
    expect((await postJson(gw, "/auth/session", { token })).status).toBe(204)
  })
})

describe("device tokens", () => {
  it("issues a token with the documented shape and a 15-minute default lifetime", async () => {
    const body = await issue([" operator.read ", "operator.read", "operator.write"])
    expect(body).toMatchObject({ token_kind: "device", device_id: "dev-1", role: "client", scopes: ["operator.read", "operator.write"] })
    expect(body.token).toMatch(/^svc-device\.v1\./)
    expect(body.token_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(Date.parse(body.expires_at) - Date.parse(body.issued_at)).toBe(900_000)
    expect(body.issued_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
  })

  it("issues persistent tokens without expiry and honours ttl_seconds", async () => {
    expect((await issue([], { persistent: true })).expires_at).toBeNull()
    const ttl = await issue([], { ttl_seconds: 3600 })
    expect(Date.parse(ttl.expires_at) - Date.parse(ttl.issued_at)).toBe(3_600_000)
  })

  it.each([
    ["persistent with ttl_seconds", { device_id: "d", role: "client", scopes: [], persistent: true, ttl_seconds: 60 }, /ttl_seconds/],
    ["ttl_seconds 0", { device_id: "d", role: "client", scopes: [], ttl_seconds: 0 }, /ttl_seconds/],
    ["ttl_seconds above 30 days", { device_id: "d", role: "client", scopes: [], ttl_seconds: 2_592_001 }, /ttl_seconds/],
    ["an unknown role", { device_id: "d", role: "admin", scopes: [] }, /role/],
    ["an empty device_id", { device_id: " ", role: "node", scopes: [] }, /device_id/],
    ["non-array scopes", { device_id: "d", role: "node", scopes: "operator.read" }, /scopes/]
  ])("rejects %s with 400", async (_name, body, message) => {
    const res = await postJson(gw, "/auth/device-tokens/issue", body, gw.adminToken)
    expect(res.status).toBe(400)
    const json = await readJson(res)
    expect(json.error).toBe("invalid_request")
    expect(json.message).toMatch(message)
  })

  it("rejects invalid JSON on issue and revoke with 400", async () => {
    expect((await postJson(gw, "/auth/device-tokens/issue", "{", gw.adminToken)).status).toBe(400)
    expect((await postJson(gw, "/auth/device-tokens/revoke", "{", gw.adminToken)).status).toBe(400)
  })

  it("only the admin token may issue or revoke (403 for device tokens, even operator.admin)", async () => {
    const { token } = await issue(["operator.admin"])
    const res = await postJson(gw, "/auth/device-tokens/issue", { device_id: "x", role: "client", scopes: [] }, token)
    expect(res.status).toBe(403)
    expect(await readJson(res)).toEqual({ error: "forbidden", message: "admin token required" })
    expect((await postJson(gw, "/auth/device-tokens/revoke", { token }, token)).status).toBe(403)
  })

  it("revokes once (200), then 404; a revoked token gets 401", async () => {
    const { token, token_id } = await issue(["operator.admin"])
    expect((await postJson(gw, "/policy/check", policyBody, token)).status).toBe(200)
    const res = await postJson(gw, "/auth/device-tokens/revoke", { token }, gw.adminToken)
    expect(res.status).toBe(200)
    expect(await readJson(res)).toEqual({ revoked: true, token_id })
    const again = await postJson(gw, "/auth/device-tokens/revoke", { token }, gw.adminToken)
    expect(again.status).toBe(404)
    expect((await readJson(again)).error).toBe("not_found")
    expect((await postJson(gw, "/policy/check", policyBody, token)).status).toBe(401)
    expect((await postJson(gw, "/auth/device-tokens/revoke", { token: "svc-device.v1.unknown" }, gw.adminToken)).status).toBe(404)
  })

  it("refuses an expired token with 401", async () => {
    const { token } = await issue(["operator.admin"], { ttl_seconds: 1 })
    expect((await postJson(gw, "/policy/check", policyBody, token)).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 2100))
    expect((await postJson(gw, "/policy/check", policyBody, token)).status).toBe(401)
  })
})

describe("authorization of device tokens", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string, string, number]> = [
    ["operator.admin may check policy", ["operator.admin"], "POST", "/policy/check", 200],
    ["operator.read may not check policy", ["operator.read"], "POST", "/policy/check", 403],
    ["operator.write may not check policy", ["operator.write"], "POST", "/policy/check", 403],
    ["* grants every scope", ["*"], "POST", "/policy/check", 200],
    ["operator.read may read the OpenAPI document", ["operator.read"], "GET", "/openapi.json", 200],
    ["no scopes: forbidden", [], "GET", "/openapi.json", 403],
    ["operator.write is not operator.read", ["operator.write"], "GET", "/openapi.json", 403],
    ["operator.read passes authz on /status (not built yet: 404)", ["operator.read"], "GET", "/status", 404],
    ["operator.read may not POST /watchers", ["operator.read"], "POST", "/watchers", 403],
    ["operator.write passes authz on POST /watchers (404)", ["operator.write"], "POST", "/watchers", 404],
    ["operator.read may not read /auth/pins", ["operator.read"], "GET", "/auth/pins", 403],
    ["operator.approvals for GET /approvals", ["operator.approvals"], "GET", "/approvals", 404],
    ["operator.read may not GET /approvals", ["operator.read"], "GET", "/approvals", 403],
    ["operator.pairing for POST /pairings/:id/approve", ["operator.pairing"], "POST", "/pairings/7/approve", 404],
    ["operator.admin for GET /routing/config", ["operator.admin"], "GET", "/routing/config", 404],
    ["routes outside the table are denied (deny by default)", ["operator.admin", "operator.read", "operator.write"], "GET", "/unmapped", 403],
    ["app-style routes are denied", ["operator.admin"], "POST", "/api/account/delete", 403]
  ]
  it.each(cases)("%s", async (_name, scopes, method, path, status) => {
    const { token } = await issue(scopes)
    const res = await gw.fetch(path, {
      method,
      headers: { ...bearer(token), "content-type": "application/json" },
      ...(method === "POST" ? { body: JSON.stringify(policyBody) } : {})
    })
    expect(res.status).toBe(status)
    if (status === 403) expect((await readJson(res)).error).toBe("forbidden")
  })

  it("says why a route outside the table is refused", async () => {
    const { token } = await issue(["operator.admin"])
    const body = await readJson(await gw.fetch("/unmapped", { headers: bearer(token) }))
    expect(body).toEqual({ error: "forbidden", message: "route is not scope-authorized for scoped tokens" })
  })

  it("the admin token bypasses scopes everywhere", async () => {
    expect((await postJson(gw, "/policy/check", policyBody, gw.adminToken)).status).toBe(200)
    expect((await gw.fetch("/unmapped", { headers: bearer(gw.adminToken) })).status).toBe(404)
  })
})
