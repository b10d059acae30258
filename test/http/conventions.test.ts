/**
 * HTTP conventions (issue #2 §8, gateway-api.md "Conventions"): request ids,
 * body limits, credential rate limits, the OpenAPI document, auth off, and
 * no 500 for any client mistake.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

describe("x-request-id", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw.close())

  it("echoes the caller's id on success and on errors", async () => {
    for (const [path, init] of [
      ["/healthz", {}],
      ["/openapi.json", {}],
      ["/nope", { headers: { authorization: `Bearer ${gw.adminToken}` } }]
    ] as const) {
      const res = await gw.fetch(path, { ...init, headers: { ...("headers" in init ? init.headers : {}), "x-request-id": "trace-42" } })
      expect(res.headers.get("x-request-id")).toBe("trace-42")
    }
    const bad = await postJson(gw, "/policy/check", "{", gw.adminToken, { "x-request-id": "trace-43" })
    expect(bad.status).toBe(400)
    expect(bad.headers.get("x-request-id")).toBe("trace-43")
  })

  it("generates a unique id when the caller sends none", async () => {
    const a = (await gw.fetch("/healthz")).headers.get("x-request-id")
    const b = (await gw.fetch("/healthz")).headers.get("x-request-id")
    expect(a).toMatch(/^req-[0-9a-f-]{36}$/)
    expect(b).toMatch(/^req-/)
    expect(a).not.toBe(b)
  })
})

/** Sends a body without content-length (chunked transfer). */
const postChunked = (gw: TestGateway, path: string, chunks: ReadonlyArray<string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const url = new URL(gw.url + path)
    const req = httpRequest(
      { host: url.hostname, port: url.port, path, method: "POST", headers: { authorization: `Bearer ${gw.adminToken}`, "transfer-encoding": "chunked" } },
      (res) => {
        let body = ""
        res.on("data", (d) => (body += d))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
      }
    )
    req.on("error", (e) => ((e as NodeJS.ErrnoException).code === "ECONNRESET" || (e as NodeJS.ErrnoException).code === "EPIPE" ? undefined : reject(e)))
    for (const c of chunks) req.write(c)
    req.end()
  })

describe("body size limit", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ maxBodyBytes: 1024 })
  })
  afterAll(() => gw.close())

  it("refuses a declared content-length above the limit with 413", async () => {
    const res = await postJson(gw, "/policy/check", JSON.stringify({ request_id: "x".repeat(2000) }), gw.adminToken)
    expect(res.status).toBe(413)
    expect((await readJson(res)).error).toBe("payload_too_large")
  })

  it("cuts a streamed (chunked) body at the limit with 413", async () => {
    const res = await postChunked(gw, "/policy/check", ["{\"request_id\":\"", "y".repeat(800), "z".repeat(800), "\"}"])
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).error).toBe("payload_too_large")
  })

  it("accepts bodies under the limit", async () => {
    const res = await postJson(gw, "/policy/check", { request_id: "x".repeat(100) }, gw.adminToken)
    expect(res.status).toBe(200)
  })
})

describe("credential rate limit", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 3, rateLimitWindowSeconds: 60 })
  })
  afterAll(() => gw.close())

  it("answers 429 with Retry-After once an address's failed authentications exceed the window", async () => {
    for (let i = 0; i < 3; i++) expect((await postJson(gw, "/auth/session", { token: "wrong" })).status).toBe(401)
    const res = await postJson(gw, "/auth/session", { token: "wrong again" })
    expect(res.status).toBe(429)
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    expect(await readJson(res)).toEqual({ error: "too_many_requests", message: "Too many requests" })
    // The window is shared by every route: a wrong bearer elsewhere is refused the same way.
    expect((await postJson(gw, "/policy/check", {}, "svc-device.v1.guess")).status).toBe(429)
    expect((await postJson(gw, "/auth/device-tokens/issue", { device_id: "d", role: "client", scopes: [] }, "guess")).status).toBe(429)
  })

  it("never refuses a valid credential, and a missing one is not counted", async () => {
    // Same (loopback) address, window full of failures: operators still get in.
    expect((await postJson(gw, "/auth/session", { token: gw.adminToken })).status).toBe(204)
    const issued = await postJson(gw, "/auth/device-tokens/issue", { device_id: "d", role: "client", scopes: ["operator.admin"] }, gw.adminToken)
    expect(issued.status).toBe(201)
    const { token } = await readJson(issued)
    for (let i = 0; i < 5; i++) expect((await postJson(gw, "/policy/check", {}, token)).status).toBe(200)
    expect((await gw.fetch("/openapi.json")).status).toBe(401)
  })
})

describe("OpenAPI document", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway()
  })
  afterAll(() => gw.close())

  it("is generated from the HttpApi definition and served at /openapi.json", async () => {
    const res = await gw.fetch("/openapi.json", { headers: { authorization: `Bearer ${gw.adminToken}` } })
    expect(res.status).toBe(200)
    const doc = await readJson(res)
    expect(doc.openapi).toMatch(/^3\./)
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/healthz", "/policy/check", "/auth/session", "/auth/logout", "/auth/device-tokens/issue", "/auth/device-tokens/revoke", "/connections", "/presence"])
    )
    expect(doc.paths["/policy/check"].post.requestBody).toBeDefined()
  })

  it("carries the package's version, and a description, the access and a curl example for every operation", async () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"))
    const doc = await readJson(await gw.fetch("/openapi.json", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(doc.info.version).toBe(pkg.version)
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, any>).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation }))
    )
    expect(operations.length).toBeGreaterThanOrEqual(67)
    expect(operations.filter(({ operation }) => !(operation.description ?? "").trim()).map(({ name }) => name)).toEqual([])
    expect(operations.filter(({ operation }) => typeof operation["x-svc-access"] !== "string").map(({ name }) => name)).toEqual([])
    expect(operations.filter(({ operation }) => !operation["x-codeSamples"]?.[0]?.source?.includes("$GW")).map(({ name }) => name)).toEqual([])
    expect(doc.paths["/approvals"].get["x-svc-access"]).toBe("operator.approvals")
    expect(doc.paths["/healthz"].get["x-svc-access"]).toBe("public")
    expect(doc.paths["/policy/check"].post.requestBody.content["application/json"].example).toMatchObject({ spend: { currency: "EUR" } })
  })
})

describe("SVC_AUTH=off (loopback only)", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ authEnabled: false })
  })
  afterAll(() => gw.close())

  it("serves protected routes without a token", async () => {
    expect((await postJson(gw, "/policy/check", {})).status).toBe(200)
    expect((await gw.fetch("/openapi.json")).status).toBe(200)
  })

  it("does not expose the auth-only routes", async () => {
    expect((await postJson(gw, "/auth/session", { token: "x" })).status).toBe(404)
    expect((await postJson(gw, "/auth/device-tokens/issue", { device_id: "d", role: "client", scopes: [] })).status).toBe(404)
  })
})

describe("client mistakes never produce a 500", () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 10_000 })
  })
  afterAll(() => gw.close())

  const bodies = [
    "", " ", "{", "}", "[]", "[{}]", "null", "true", "0", "-1", "\"x\"", "{\"spend\":null}", "{\"spend\":[]}",
    "{\"spend\":{\"amount_minor_units\":1e400,\"currency\":\"EUR\"}}", "{\"pii\":{\"categories\":[null]}}",
    "{\"__proto__\":{\"x\":1}}", "{\"connector\":{\"scope\":{}}}", "\u0000", "{\"a\":\"\\ud800\"}",
    "{\"spend\":{\"amount_minor_units\":9007199254740993,\"currency\":\"EUR\"}}"
  ]
  it.each(bodies)("POST /policy/check %j → 4xx or 200", async (body) => {
    const res = await postJson(gw, "/policy/check", body, gw.adminToken)
    expect(res.status).toBeLessThan(500)
    expect(res.status === 200 || res.status === 400).toBe(true)
  })

  it.each(bodies)("POST /auth/device-tokens/issue %j → 400", async (body) => {
    const res = await postJson(gw, "/auth/device-tokens/issue", body, gw.adminToken)
    expect(res.status).toBe(400)
  })
})
