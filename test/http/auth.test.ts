/**
 * The authentication and authorization matrix on a real server
 * (gateway-api.md "Authentication"; reference §2.4–2.6, §9.3).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Duration } from "effect"
import { TestClock } from "effect/testing"
import { request as httpRequest } from "node:http"
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

  it("authenticates from the headers before the body arrives; the admin's request is answered once it has", async () => {
    // Only the headers are sent at first: a refusal cannot depend on the body.
    const open = (headers: Record<string, string>) => {
      const url = new URL(gw.url)
      const req = httpRequest({
        host: url.hostname,
        port: url.port,
        path: "/policy/check",
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", "content-length": String(JSON.stringify(policyBody).length), ...headers }
      })
      const status = new Promise<number>((resolve, reject) => {
        req.on("response", (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
        req.on("error", reject)
      })
      req.flushHeaders()
      return { req, status }
    }
    for (const headers of [{}, bearer("f".repeat(64))]) {
      const { req, status } = open(headers)
      expect(await status).toBe(401)
      req.destroy()
    }
    const admin = open(bearer(gw.adminToken))
    admin.req.end(JSON.stringify(policyBody))
    expect(await admin.status).toBe(200)
  })

  it("answers 401 before 404 for unknown routes", async () => {
    expect((await gw.fetch("/no/such/route")).status).toBe(401)
    const res = await gw.fetch("/no/such/route", { headers: bearer(gw.adminToken) })
    expect(res.status).toBe(404)
    expect(await readJson(res)).toEqual({ error: "not_found", message: "route not found" })
  })

  it("answers the spec's public paths without asking for a token", async () => {
    // gateway-api.md "Public routes": /ui and /ui/* are public (test/http/ui.test.ts checks their answers).
    for (const path of ["/ui", "/ui/settings/tokens", "/ui/app.js"]) {
      const res = await gw.fetch(path)
      expect(res.status).not.toBe(401)
      await res.arrayBuffer()
    }
    // The OAuth callback is served now (docs/provider-oauth.md): public, an unknown state is the 400 HTML page.
    const callback = await gw.fetch("/providers/github/oauth/callback?state=x&code=y")
    expect(callback.status).toBe(400)
    expect(callback.headers.get("content-type")).toMatch(/^text\/html/)
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
    const body = await issue(["operator.read", "operator.read", "operator.write"])
    expect(body).toMatchObject({ token_kind: "device", device_id: "dev-1", role: "client", scopes: ["operator.read", "operator.write"] })
    expect(body.token).toMatch(/^svc-device\.v1\./)
    expect(body.token_id).toMatch(/^[0-9a-f-]{36}$/)
    expect(Date.parse(body.expires_at) - Date.parse(body.issued_at)).toBe(900_000)
    expect(body.issued_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
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
    ["non-array scopes", { device_id: "d", role: "node", scopes: "operator.read" }, /scopes/],
    ["a 900 KB device_id", { device_id: "x".repeat(900_000), role: "client", scopes: [] }, /device_id: expected at most 128 characters/],
    ["a 129-character device_id", { device_id: "d".repeat(129), role: "client", scopes: [] }, /device_id/],
    ["a device_id with spaces or slashes", { device_id: "my laptop/1", role: "client", scopes: [] }, /device_id: expected only letters, digits/],
    ["50,000 scopes", { device_id: "d", role: "client", scopes: Array.from({ length: 50_000 }, () => "operator.read") }, /scopes: expected at most 32 scopes/],
    ["a 65-character scope", { device_id: "d", role: "client", scopes: ["s".repeat(65)] }, /scopes\[0\]/],
    ["a scope with a space inside", { device_id: "d", role: "client", scopes: ["operator read"] }, /scopes\[0\]/],
    ["the wildcard *", { device_id: "d", role: "client", scopes: ["operator.read", "*"] }, /^scopes\[1\]: expected one of operator\.read, operator\.write, operator\.admin, operator\.approvals, operator\.pairing, got "\*"$/],
    ["an unknown scope name", { device_id: "d", role: "client", scopes: ["operator.root"] }, /^scopes\[0\]: expected one of operator\.read, .*, got "operator\.root"$/],
    ["a blank scope", { device_id: "d", role: "client", scopes: [" "] }, /^scopes\[0\]: expected one of operator\.read, /],
    ["a padded scope", { device_id: "d", role: "client", scopes: [" operator.read "] }, /^scopes\[0\]: expected one of operator\.read, .*, got " operator\.read "$/]
  ])("rejects %s with 400", async (_name, body, message) => {
    const res = await postJson(gw, "/auth/device-tokens/issue", body, gw.adminToken)
    expect(res.status).toBe(400)
    const json = await readJson(res)
    expect(json.error).toBe("invalid_request")
    expect(json.message).toMatch(message)
    expect(json.message.length).toBeLessThan(300)
  })

  it("accepts the largest device_id and scope list (32 entries, de-duplicated), and handshake-style device ids", async () => {
    const known = ["operator.read", "operator.write", "operator.admin", "operator.approvals", "operator.pairing"]
    const scopes = Array.from({ length: 32 }, (_, i) => known[i % known.length]!)
    const big = await issue(scopes, { device_id: "D".repeat(128) })
    expect(big.scopes).toEqual(known)
    expect((await issue([], { device_id: "dev_abcdefghijklmnopqrstuvwxyz234567abcdefghijklmnopqrst" })).device_id).toMatch(/^dev_/)
    expect((await issue([], { device_id: "ops.laptop-1@site:eu_west" })).device_id).toBe("ops.laptop-1@site:eu_west")
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

})

describe("device token expiry (test clock)", () => {
  let clocked: TestGateway
  beforeAll(async () => {
    clocked = await startGateway({}, undefined, { clock: "test" })
  })
  afterAll(() => clocked.close())

  it("accepts a token for its whole TTL after the response, then refuses it with 401", async () => {
    // Mid-second, so a timestamp truncated to whole seconds would cut the TTL short.
    await clocked.run(TestClock.adjust(Duration.millis(500)))
    const res = await postJson(clocked, "/auth/device-tokens/issue", { device_id: "dev-1", role: "client", scopes: ["operator.admin"], ttl_seconds: 1 }, clocked.adminToken)
    const { token, issued_at, expires_at } = await readJson(res)
    expect(Date.parse(expires_at) - Date.parse(issued_at)).toBe(1000)
    expect((await postJson(clocked, "/policy/check", policyBody, token)).status).toBe(200)
    await clocked.run(TestClock.adjust(Duration.millis(999)))
    expect((await postJson(clocked, "/policy/check", policyBody, token)).status).toBe(200)
    await clocked.run(TestClock.adjust(Duration.millis(1)))
    const expired = await postJson(clocked, "/policy/check", policyBody, token)
    expect(expired.status).toBe(401)
    expect((await readJson(expired)).error).toBe("unauthorized")
  })
})

describe("cookie credentials on state-changing requests (same origin only)", () => {
  const host = () => new URL(gw.url).host
  const cookieHeaders = (extra: Record<string, string>) => ({ cookie: `svc_admin_token=${gw.adminToken}`, ...extra })
  const issueBody = JSON.stringify({ device_id: "csrf", role: "client", scopes: [] })

  it.each([
    ["another port on the same host", () => `http://127.0.0.1:${Number(new URL(gw.url).port) + 1}`],
    ["another host", () => "http://evil.example"],
    ["https for an http gateway", () => `https://${host()}`],
    ["Origin: null", () => "null"]
  ])("refuses %s with 403, even with text/plain", async (_name, origin) => {
    const res = await gw.fetch("/auth/device-tokens/issue", {
      method: "POST",
      headers: cookieHeaders({ origin: origin(), "content-type": "text/plain" }),
      body: issueBody
    })
    expect(res.status).toBe(403)
    expect((await readJson(res)).error).toBe("forbidden")
  })

  it("refuses a cookie POST without an Origin header", async () => {
    const res = await gw.fetch("/policy/check", { method: "POST", headers: cookieHeaders({}), body: JSON.stringify(policyBody) })
    expect(res.status).toBe(403)
  })

  it("accepts a cookie POST from the gateway's own origin, and cookie GETs without Origin", async () => {
    const res = await gw.fetch("/auth/device-tokens/issue", {
      method: "POST",
      headers: cookieHeaders({ origin: gw.url, "content-type": "application/json" }),
      body: issueBody
    })
    expect(res.status).toBe(201)
    expect((await gw.fetch("/openapi.json", { headers: cookieHeaders({}) })).status).toBe(200)
  })

  it("leaves bearer requests alone, whatever their Origin", async () => {
    const res = await gw.fetch("/policy/check", {
      method: "POST",
      headers: { ...bearer(gw.adminToken), origin: "http://evil.example" },
      body: JSON.stringify(policyBody)
    })
    expect(res.status).toBe(200)
  })
})

describe("authorization of device tokens", () => {
  const cases: ReadonlyArray<readonly [string, ReadonlyArray<string>, string, string, number]> = [
    ["operator.admin may check policy", ["operator.admin"], "POST", "/policy/check", 200],
    ["operator.read may not check policy", ["operator.read"], "POST", "/policy/check", 403],
    ["operator.write may not check policy", ["operator.write"], "POST", "/policy/check", 403],
    ["operator.read may read the OpenAPI document", ["operator.read"], "GET", "/openapi.json", 200],
    ["no scopes: forbidden", [], "GET", "/openapi.json", 403],
    ["operator.write is not operator.read", ["operator.write"], "GET", "/openapi.json", 403],
    ["operator.read may read /status", ["operator.read"], "GET", "/status", 200],
    ["operator.read may not POST /watchers", ["operator.read"], "POST", "/watchers", 403],
    ["operator.write passes authz on POST /watchers (not a valid watcher: 400)", ["operator.write"], "POST", "/watchers", 400],
    ["operator.read may not read /auth/pins", ["operator.read"], "GET", "/auth/pins", 403],
    ["operator.approvals for GET /approvals", ["operator.approvals"], "GET", "/approvals", 200],
    ["operator.read may not GET /approvals", ["operator.read"], "GET", "/approvals", 403],
    ["operator.pairing passes authz on POST /pairings/:id/approve (not a valid approval: 400)", ["operator.pairing"], "POST", "/pairings/7/approve", 400],
    ["operator.read may not POST /pairings/:id/approve", ["operator.read"], "POST", "/pairings/7/approve", 403],
    ["operator.admin may read /routing/config", ["operator.admin"], "GET", "/routing/config", 200],
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
