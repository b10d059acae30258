/**
 * Hono peer for the HTTP benchmark: `POST /policy/check` on Hono 4 +
 * `@hono/node-server` + zod 4, the stack of the original product and what a
 * user would otherwise pick. Written as an ordinary Hono app, doing the same
 * work as the plain `node:http` baseline (bench/baseline-server.ts):
 *
 * - bearer check of the admin token, constant time (SHA-256 digests compared
 *   with `timingSafeEqual`), 401 `{"error":"unauthorized",…}` when missing or
 *   invalid. A small middleware rather than `hono/bearer-auth`: that one
 *   answers 400 (not 401) to a malformed `Authorization` header and hashes
 *   both tokens on every request, i.e. different behaviour and more work;
 * - a 1 MiB body limit (413): a declared `content-length` above it is refused
 *   before reading, a chunked body is measured after `c.req.text()`. Not
 *   `hono/body-limit`: it reads `c.req.raw.body`, which makes
 *   `@hono/node-server` build a streamed web `Request`, and that alone made
 *   this server 3.5× slower (docs/performance.md) — a performance-aware Hono
 *   user writes the check like this;
 * - `JSON.parse` of the text (400 on malformed or empty JSON);
 * - zod `safeParse` with a schema equivalent to `PolicyCheckRequest`
 *   (bench/zod-schema.ts), 400 `{"error":"invalid_request","message":…}`;
 * - the same `evaluatePolicy`, answered with `c.json` (`JSON.stringify`).
 *
 * Run as a child process by `bench/run.ts`:
 * `HONO_PORT=… HONO_TOKEN=… node dist/bench/hono-server.js`.
 *
 * @module
 */
import { serve } from "@hono/node-server"
import { Hono } from "hono"
import { createMiddleware } from "hono/factory"
import { createHash, timingSafeEqual } from "node:crypto"
import { evaluatePolicy } from "../services/policy/engine.ts"
import { describeZodError, PolicyCheckRequestZod } from "./zod-schema.ts"

const HOST = process.env.HONO_HOST ?? "127.0.0.1"
const PORT = Number(process.env.HONO_PORT ?? "0")
const TOKEN = process.env.HONO_TOKEN ?? ""
const MAX_BODY_BYTES = 1_048_576

if (TOKEN.length === 0) {
  console.error("hono-server: HONO_TOKEN is required")
  process.exit(2)
}

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()
const expectedDigest = digest(TOKEN)

/** Error body shared with the plain baseline: `{"error": code, "message": message}`. */
const problem = (code: string, message: string = code) => ({ error: code, message })

const requireAdmin = createMiddleware(async (c, next) => {
  const header = c.req.header("authorization")
  if (header === undefined || !header.startsWith("Bearer ") || !timingSafeEqual(expectedDigest, digest(header.slice(7)))) {
    return c.json(problem("unauthorized"), 401)
  }
  await next()
})

const app = new Hono()

const tooLarge = problem("payload_too_large")

app.post(
  "/policy/check",
  requireAdmin,
  async (c) => {
    if (Number(c.req.header("content-length") ?? 0) > MAX_BODY_BYTES) return c.json(tooLarge, 413)
    const text = await c.req.text()
    if (Buffer.byteLength(text, "utf8") > MAX_BODY_BYTES) return c.json(tooLarge, 413)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return c.json(problem("invalid_request", "request body is not valid JSON"), 400)
    }
    const parsed = PolicyCheckRequestZod.safeParse(body)
    if (!parsed.success) return c.json(problem("invalid_request", describeZodError(parsed.error)), 400)
    return c.json(evaluatePolicy(parsed.data))
  }
)

app.get("/healthz", (c) => c.json({ status: "ok", is_exposed: false }))

app.notFound((c) => c.json(problem("not_found"), 404))

const server = serve({ fetch: app.fetch, hostname: HOST, port: PORT })

const stop = () => {
  if ("closeAllConnections" in server) server.closeAllConnections()
  server.close(() => process.exit(0))
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
