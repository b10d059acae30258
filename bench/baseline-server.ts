/**
 * Baseline for the HTTP benchmark: the least code a plain `node:http` server
 * needs to serve `POST /policy/check` safely. Bearer token compared in
 * constant time (401), body read with a size limit (413), `JSON.parse` (400),
 * hand-written schema checks (400), the same `evaluatePolicy`, `JSON.stringify`.
 *
 * Run as a child process by `bench/run.ts`:
 * `BASELINE_PORT=… BASELINE_TOKEN=… node dist/bench/baseline-server.js`.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import { evaluatePolicy } from "../services/policy/engine.ts"
import { validatePolicyCheck } from "./baseline-validate.ts"

const HOST = process.env.BASELINE_HOST ?? "127.0.0.1"
const PORT = Number(process.env.BASELINE_PORT ?? "0")
const TOKEN = process.env.BASELINE_TOKEN ?? ""
const MAX_BODY_BYTES = 1_048_576

if (TOKEN.length === 0) {
  console.error("baseline-server: BASELINE_TOKEN is required")
  process.exit(2)
}

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()
const expectedDigest = digest(TOKEN)
const isAuthorized = (header: string | undefined): boolean =>
  header !== undefined && header.startsWith("Bearer ") && timingSafeEqual(expectedDigest, digest(header.slice(7)))

const send = (res: ServerResponse, status: number, body: string): void => {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}
const error = (res: ServerResponse, status: number, code: string): void =>
  send(res, status, `{"error":"${code}","message":"${code}"}`)

const HEALTH = JSON.stringify({ status: "ok", is_exposed: false })

const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/healthz") {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(HEALTH) })
    return void res.end(HEALTH)
  }
  if (req.method !== "POST" || req.url !== "/policy/check") return error(res, 404, "not_found")
  if (!isAuthorized(req.headers.authorization)) return error(res, 401, "unauthorized")
  const chunks: Array<Buffer> = []
  let size = 0
  req.on("data", (chunk: Buffer) => {
    size += chunk.length
    if (size > MAX_BODY_BYTES) {
      error(res, 413, "payload_too_large")
      req.destroy()
      return
    }
    chunks.push(chunk)
  })
  req.on("end", () => {
    let body: unknown
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return error(res, 400, "invalid_request")
    }
    const request = validatePolicyCheck(body)
    if (request === undefined) return error(res, 400, "invalid_request")
    send(res, 200, JSON.stringify(evaluatePolicy(request)))
  })
})

server.listen(PORT, HOST)

const stop = () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
