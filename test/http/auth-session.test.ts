/**
 * `GET /auth/session` on a real server (issue 23 §2.1: the console hides what
 * the principal cannot do): who the presented token is, by bearer header or
 * the `svc_admin_token` cookie; the admin token with every known scope; a
 * device token with its scopes, device, role and expiry; never the token;
 * 401 without a valid one; absent with `SVC_AUTH=off`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { KNOWN_SCOPES } from "../../services/auth/schema.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 1000 })
})
afterAll(() => gw.close())

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
const cookie = (token: string) => ({ cookie: `svc_admin_token=${token}` })

const issue = async (body: Record<string, unknown>) => {
  const res = await postJson(gw, "/auth/device-tokens/issue", body, gw.adminToken)
  expect(res.status).toBe(201)
  return readJson(res)
}

const whoami = async (headers: Record<string, string>) => {
  const res = await gw.fetch("/auth/session", { headers })
  const text = await res.text()
  return { status: res.status, text, body: JSON.parse(text) }
}

describe("GET /auth/session", () => {
  it.each([["bearer", bearer], ["cookie", cookie]] as const)("answers the admin token (%s) with every known scope", async (_name, credential) => {
    const { status, body, text } = await whoami(credential(gw.adminToken))
    expect(status).toBe(200)
    expect(body).toEqual({ status: "ok", token_kind: "admin", scopes: [...KNOWN_SCOPES] })
    expect(text).not.toContain(gw.adminToken)
  })

  it.each([["bearer", bearer], ["cookie", cookie]] as const)("answers a device token (%s) with its scopes, device, role and expiry", async (_name, credential) => {
    const issued = await issue({ device_id: "ops-laptop", role: "client", scopes: ["operator.approvals", "operator.read"], ttl_seconds: 3600 })
    const { status, body, text } = await whoami(credential(issued.token))
    expect(status).toBe(200)
    expect(body).toEqual({
      status: "ok",
      token_kind: "device",
      scopes: ["operator.approvals", "operator.read"],
      token_id: issued.token_id,
      device_id: "ops-laptop",
      role: "client",
      expires_at: issued.expires_at
    })
    expect(text).not.toContain(issued.token)
  })

  it("answers a persistent device token without scopes: expires_at null, scopes []", async () => {
    const issued = await issue({ device_id: "bot-1", role: "node", scopes: [], persistent: true })
    const { status, body } = await whoami(bearer(issued.token))
    expect(status).toBe(200)
    expect(body).toMatchObject({ token_kind: "device", scopes: [], role: "node", device_id: "bot-1", expires_at: null })
  })

  it("answers the token stored by POST /auth/session (the console's sign-in)", async () => {
    const issued = await issue({ device_id: "browser", role: "client", scopes: ["operator.read"] })
    const signIn = await postJson(gw, "/auth/session", { token: issued.token })
    expect(signIn.status).toBe(204)
    const pair = (signIn.headers.get("set-cookie") ?? "").split(";")[0]!
    const res = await gw.fetch("/auth/session", { headers: { cookie: pair } })
    expect(res.status).toBe(200)
    expect(await readJson(res)).toMatchObject({ token_kind: "device", device_id: "browser", scopes: ["operator.read"] })
  })

  it.each([
    ["no credential", {}],
    ["an unknown bearer token", bearer("f".repeat(64))],
    ["an unknown device token cookie", cookie("svc-device.v1.nope")]
  ])("is 401 unauthorized with %s", async (_name, headers) => {
    const res = await gw.fetch("/auth/session", { headers: headers as Record<string, string> })
    expect(res.status).toBe(401)
    expect((await readJson(res)).error).toBe("unauthorized")
  })

  it("is 401 for a revoked device token", async () => {
    const issued = await issue({ device_id: "gone", role: "client", scopes: ["operator.read"] })
    expect((await postJson(gw, "/auth/device-tokens/revoke", { token: issued.token }, gw.adminToken)).status).toBe(200)
    expect((await gw.fetch("/auth/session", { headers: bearer(issued.token) })).status).toBe(401)
  })
})

describe("GET /auth/session with SVC_AUTH=off", () => {
  let open: TestGateway
  beforeAll(async () => {
    open = await startGateway({ authEnabled: false })
  })
  afterAll(() => open.close())

  it("is not served (the auth routes exist only with gateway auth)", async () => {
    const res = await open.fetch("/auth/session")
    expect(res.status).toBe(404)
    expect((await readJson(res)).error).toBe("not_found")
  })
})
