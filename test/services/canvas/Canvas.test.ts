/**
 * The canvas service on every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): publish and read back (content and
 * metadata, JSON metadata round trip), unknown ids, the size cap in UTF-8
 * bytes (nothing stored above it), the audit decision on `gateway.canvas`,
 * and the newest-first listing with keyset cursors (tampered cursor refused).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { TestClock } from "effect/testing"
import { GatewayConfig } from "../../../layers/config.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Canvas } from "../../../services/canvas/Canvas.ts"
import { CanvasRepo } from "../../../services/canvas/CanvasRepo.ts"
import { type TestDatabase, testDatabases } from "../../support/databases.ts"
import { testSettings } from "../../support/gateway.ts"

const canvasLayer = (db: TestDatabase, maxBytes = 64) =>
  Canvas.layerNoDeps.pipe(
    Layer.provideMerge(CanvasRepo.layer),
    Layer.provideMerge(AuditLog.layer),
    Layer.provide(Layer.succeed(GatewayConfig, testSettings({ canvasMaxBytes: maxBytes }))),
    Layer.provideMerge(db.make())
  )

const PAGE = { title: "Report", content_type: "text/html" as const, html_content: "<h1>Hi</h1>" }

for (const db of testDatabases) {
  describe(`Canvas on ${db.name}`, () => {
    it.effect("publishes a page and serves its content and metadata", () =>
      Effect.gen(function*() {
        const canvas = yield* Canvas
        yield* TestClock.adjust("1 second")
        const published = yield* canvas.publish({ ...PAGE, plan_id: "plan-7", metadata: { run: "nightly", n: 3, nested: { ok: true } } })
        expect(published.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
        expect(published.created_at).toBe("1970-01-01T00:00:01.000Z")
        const page = yield* canvas.get(published.id)
        expect(page.content).toBe("<h1>Hi</h1>")
        const meta = {
          id: published.id,
          plan_id: "plan-7",
          title: "Report",
          content_type: "text/html",
          metadata: { run: "nightly", n: 3, nested: { ok: true } },
          size_bytes: 11,
          created_at: "1970-01-01T00:00:01.000Z"
        }
        expect(page.meta).toEqual(meta)
        expect(yield* canvas.meta(published.id)).toEqual(meta)

        const plain = yield* canvas.publish({ title: "Notes", content_type: "text/plain", html_content: "" })
        expect(yield* canvas.meta(plain.id)).toMatchObject({ plan_id: null, metadata: null, content_type: "text/plain", size_bytes: 0 })
        expect((yield* canvas.get(plain.id)).content).toBe("")
      }).pipe(Effect.provide(canvasLayer(db))))

    it.effect("answers NotFound for an unknown id", () =>
      Effect.gen(function*() {
        const canvas = yield* Canvas
        const id = "00000000-0000-4000-8000-000000000000"
        const missing = yield* Effect.flip(canvas.get(id))
        expect(missing).toMatchObject({ _tag: "NotFound", message: `canvas ${id} not found` })
        expect((yield* Effect.flip(canvas.meta(id)))._tag).toBe("NotFound")
      }).pipe(Effect.provide(canvasLayer(db))))

    it.effect("refuses content over canvasMaxBytes, counted in UTF-8 bytes, and stores nothing", () =>
      Effect.gen(function*() {
        const canvas = yield* Canvas
        // 32 "é" are 64 bytes: exactly the cap.
        yield* canvas.publish({ ...PAGE, html_content: "é".repeat(32) })
        const over = yield* Effect.flip(canvas.publish({ ...PAGE, html_content: "é".repeat(32) + "x" }))
        expect(over).toMatchObject({ _tag: "PayloadTooLarge", message: "html_content is 65 bytes, over the 64-byte limit (SVC_CANVAS_MAX_BYTES)" })
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM canvas_artifacts`
        expect(Number(rows[0]!.n)).toBe(1)
        const audit = yield* AuditLog
        expect(yield* audit.events("gateway.canvas")).toHaveLength(1)
      }).pipe(Effect.provide(canvasLayer(db))))

    it.effect("appends canvas.published to the gateway.canvas chain with the content's digest, never the content", () =>
      Effect.gen(function*() {
        const canvas = yield* Canvas
        const published = yield* canvas.publish({ ...PAGE, plan_id: "plan-9" })
        const audit = yield* AuditLog
        const chain = yield* audit.events("gateway.canvas")
        expect(chain.map((e) => e.action)).toEqual([{
          type: "canvas.published",
          canvas_id: published.id,
          plan_id: "plan-9",
          title: "Report",
          content_type: "text/html",
          size_bytes: 11,
          content_sha256: createHash("sha256").update("<h1>Hi</h1>").digest("hex")
        }])
        expect(audit.verify(chain).valid).toBe(true)
        expect(JSON.stringify(chain)).not.toContain("<h1>")
      }).pipe(Effect.provide(canvasLayer(db))))

    it.effect("lists pages newest first, page by page, with cursors that never repeat or skip", () =>
      Effect.gen(function*() {
        const canvas = yield* Canvas
        const ids: Array<string> = []
        for (let i = 0; i < 5; i++) {
          // Two pages per instant: the id breaks ties.
          if (i % 2 === 0) yield* TestClock.adjust("1 second")
          ids.push((yield* canvas.publish({ ...PAGE, title: `page ${i}` })).id)
        }
        const seen: Array<string> = []
        let cursor: string | undefined
        let batches = 0
        do {
          const page = yield* canvas.list({ limit: 2, ...(cursor !== undefined ? { cursor } : {}) })
          seen.push(...page.pages.map((p) => p.id))
          cursor = page.next_cursor
          batches++
        } while (cursor !== undefined)
        expect(batches).toBe(3)
        expect(new Set(seen).size).toBe(5)
        const all = yield* canvas.list({})
        expect(all.next_cursor).toBeUndefined()
        expect(all.pages.map((p) => p.id)).toEqual(seen)
        // Newest first: created_at never increases down the list.
        const times = all.pages.map((p) => p.created_at)
        expect([...times].sort().reverse()).toEqual(times)
        expect(all.pages[0]!.title).toBe("page 4")
        expect(all.pages.slice(-2).map((p) => p.title).sort()).toEqual(["page 0", "page 1"])

        const bad = yield* Effect.flip(canvas.list({ cursor: "not-a-cursor" }))
        expect(bad).toMatchObject({ _tag: "InvalidRequest", message: "invalid cursor" })
      }).pipe(Effect.provide(canvasLayer(db))))
  })
}
