/**
 * Canvas pages over HTTP on a real server (gateway-api.md "Canvas artifacts";
 * reference §6.8; docs/canvas.md), on SQLite and PostgreSQL (when
 * SVC_TEST_DATABASE_URL is set): publish → 201 `{id, created_at}`; the page
 * served with its Content-Type, the exact CSP, nosniff and no-store; its
 * metadata; the listing; 400 for every malformed body (strict: unknown keys
 * too) and for a malformed id; 404 for an unknown id; 413 above
 * `canvasMaxBytes`; device-token scopes (read may read, not publish).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; font-src 'self'"
const MAX = 1024

const get = (gw: TestGateway, path: string, token = gw.adminToken) => gw.fetch(path, { headers: { authorization: `Bearer ${token}` } })
const publish = async (gw: TestGateway, body: unknown, token = gw.adminToken) => {
  const res = await postJson(gw, "/canvas/publish", body, token)
  return { status: res.status, body: (await readJson(res)) as Record<string, unknown> }
}

const issue = async (gw: TestGateway, scopes: ReadonlyArray<string>) => {
  const device_id = `dev-${Math.random().toString(36).slice(2)}`
  const res = await postJson(gw, "/auth/device-tokens/issue", { device_id, role: "client", scopes }, gw.adminToken)
  expect(res.status).toBe(201)
  return ((await readJson(res)) as { token: string }).token
}

for (const database of databases) {
  describe(`canvas over HTTP on ${database.name}`, () => {
    let gw: TestGateway
    beforeAll(async () => {
      gw = await startGateway({ canvasMaxBytes: MAX }, database.storage())
    })
    afterAll(() => gw.close())

    it("publishes a page and serves it with its CSP, nosniff and no-store; meta and list", async () => {
      const html = "<h1>Deployed</h1><script>document.title = 'ran'</script>"
      const created = await publish(gw, { plan_id: "plan-42", title: "Deploy", content_type: "text/html", html_content: html, metadata: { run: "nightly" } })
      expect(created.status).toBe(201)
      expect(Object.keys(created.body).sort()).toEqual(["created_at", "id"])
      const id = created.body.id as string

      const page = await get(gw, `/canvas/${id}`)
      expect(page.status).toBe(200)
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8")
      expect(page.headers.get("content-security-policy")).toBe(CSP)
      expect(page.headers.get("x-content-type-options")).toBe("nosniff")
      expect(page.headers.get("cache-control")).toBe("no-store")
      expect(await page.text()).toBe(html)

      const meta = await get(gw, `/canvas/${id}/meta`)
      expect(meta.status).toBe(200)
      expect(await meta.json()).toEqual({
        id,
        plan_id: "plan-42",
        title: "Deploy",
        content_type: "text/html",
        metadata: { run: "nightly" },
        size_bytes: new TextEncoder().encode(html).length,
        created_at: created.body.created_at
      })

      const text = await publish(gw, { title: "Notes", content_type: "text/plain", html_content: "plain <b>text</b> ✓" })
      expect(text.status).toBe(201)
      const plain = await get(gw, `/canvas/${text.body.id as string}`)
      expect(plain.headers.get("content-type")).toBe("text/plain; charset=utf-8")
      expect(plain.headers.get("content-security-policy")).toBe(CSP)
      expect(await plain.text()).toBe("plain <b>text</b> ✓")

      const list = await get(gw, "/canvas?limit=1")
      expect(list.status).toBe(200)
      const listed = (await list.json()) as { pages: Array<{ id: string }>; next_cursor?: string }
      expect(listed.pages).toHaveLength(1)
      expect(typeof listed.next_cursor).toBe("string")
      const rest = (await (await get(gw, `/canvas?limit=200&cursor=${listed.next_cursor!}`)).json()) as { pages: Array<{ id: string }> }
      expect([...listed.pages, ...rest.pages].map((p) => p.id)).toEqual(expect.arrayContaining([id, text.body.id]))
      expect((await get(gw, "/canvas?cursor=bogus")).status).toBe(400)

      // Each publish is on the gateway.canvas audit chain, which exports and verifies.
      const audit = (await (await get(gw, "/audit/export/gateway.canvas")).json()) as {
        events: Array<{ action: { type: string; canvas_id: string } }>
        chain_verification: { valid: boolean }
      }
      expect(audit.chain_verification.valid).toBe(true)
      expect(audit.events.map((e) => e.action.canvas_id)).toEqual(expect.arrayContaining([id, text.body.id]))
      expect(JSON.stringify(audit)).not.toContain("<script>")
      expect((await get(gw, "/canvas?limit=0")).status).toBe(400)
    })

    it("answers 400 for every malformed body and stores nothing", async () => {
      const good = { title: "T", content_type: "text/html", html_content: "<p>x</p>" }
      const cases: ReadonlyArray<readonly [unknown, RegExp]> = [
        [{ ...good, content_type: "application/javascript" }, /^content_type: /],
        [{ ...good, content_type: "text/html; charset=utf-8" }, /^content_type: /],
        [{ content_type: "text/html", html_content: "x" }, /^title: missing required field/],
        [{ ...good, title: "" }, /^title: expected a non-empty string/],
        [{ title: "T", content_type: "text/html" }, /^html_content: missing required field/],
        [{ ...good, html_content: 42 }, /^html_content: /],
        [{ ...good, metadata: [1, 2] }, /^metadata: /],
        [{ ...good, plan_id: 7 }, /^plan_id: /],
        [{ ...good, script: true }, /^script: unexpected field/],
        [[good], /./]
      ]
      for (const [body, message] of cases) {
        const res = await publish(gw, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error).toBe("invalid_request")
        expect(res.body.message).toMatch(message)
      }
      const bad = await gw.fetch("/canvas/publish", {
        method: "POST",
        headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
        body: "{not json"
      })
      expect(bad.status).toBe(400)
      const listed = (await (await get(gw, "/canvas?limit=200")).json()) as { pages: Array<{ title: string }> }
      expect(listed.pages.some((p) => p.title === "T")).toBe(false)
    })

    it("answers 413 above canvasMaxBytes (UTF-8 bytes), 404 for an unknown id, 400 for a malformed id", async () => {
      const atCap = await publish(gw, { title: "cap", content_type: "text/plain", html_content: "x".repeat(MAX) })
      expect(atCap.status).toBe(201)
      const over = await publish(gw, { title: "over", content_type: "text/plain", html_content: "é".repeat(MAX / 2) + "x" })
      expect(over.status).toBe(413)
      expect(over.body).toEqual({ error: "payload_too_large", message: `html_content is ${MAX + 1} bytes, over the ${MAX}-byte limit (SVC_CANVAS_MAX_BYTES)` })

      const unknown = "00000000-0000-4000-8000-000000000000"
      for (const path of [`/canvas/${unknown}`, `/canvas/${unknown}/meta`]) {
        const res = await get(gw, path)
        expect(res.status).toBe(404)
        expect(await res.json()).toEqual({ error: "not_found", message: `canvas ${unknown} not found` })
      }
      for (const path of ["/canvas/not-a-uuid", "/canvas/not-a-uuid/meta", "/canvas/..%2Fetc/meta"]) {
        const res = await get(gw, path)
        expect(res.status, path).toBe(400)
        expect(((await res.json()) as { error: string }).error).toBe("invalid_request")
      }
    })

    it("needs operator.write to publish and operator.read to read", async () => {
      const reader = await issue(gw, ["operator.read"])
      const writer = await issue(gw, ["operator.write"])
      const body = { title: "scoped", content_type: "text/plain", html_content: "hello" }
      expect((await publish(gw, body, reader)).status).toBe(403)
      const created = await publish(gw, body, writer)
      expect(created.status).toBe(201)
      const id = created.body.id as string
      expect((await get(gw, `/canvas/${id}`, reader)).status).toBe(200)
      expect((await get(gw, `/canvas/${id}/meta`, reader)).status).toBe(200)
      expect((await get(gw, "/canvas", reader)).status).toBe(200)
      expect((await get(gw, `/canvas/${id}`, writer)).status).toBe(403)
      expect((await gw.fetch(`/canvas/${id}`)).status).toBe(401)
    })
  })
}
