/**
 * What the plain `node:http` baselines of the benchmarks share (bench/baseline-server.ts for `POST /policy/check`,
 * bench/agent-baseline-server.ts for `POST /agent/turn`): the least a safe JSON endpoint does. Its settings from
 * `<PREFIX>_HOST`, `<PREFIX>_PORT`, `<PREFIX>_TOKEN` (required); the bearer token compared in constant time (401), the
 * body read with a 1 MiB limit (413), `JSON.parse` (400); `handle` does the rest. Stops on SIGTERM/SIGINT.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"

/** Largest request body, in bytes. */
export const MAX_BODY_BYTES = 1_048_576

/** Writes `body` (JSON text) with `status`. */
export const send = (res: ServerResponse, status: number, body: string): void => {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  res.end(body)
}

/** Writes `{error: code, message: code}` with `status`. */
export const error = (res: ServerResponse, status: number, code: string): void =>
  send(res, status, `{"error":"${code}","message":"${code}"}`)

/**
 * Serves `POST <path>` with `handle(body, res)` once the token and the body passed, and `GET` requests with
 * `onGet` (default `{"status":"ok"}`); anything else 404. Answers the listening server.
 */
export const serveBaseline = (options: {
  readonly prefix: string
  readonly path: string
  readonly handle: (body: unknown, res: ServerResponse) => void
  readonly onGet?: (req: IncomingMessage, res: ServerResponse) => void
}): Server => {
  const env = (name: string) => process.env[`${options.prefix}_${name}`]
  const token = env("TOKEN") ?? ""
  if (token.length === 0) {
    console.error(`${options.prefix.toLowerCase()}: ${options.prefix}_TOKEN is required`)
    process.exit(2)
  }
  const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()
  const expected = digest(token)
  const isAuthorized = (header: string | undefined): boolean =>
    header !== undefined && header.startsWith("Bearer ") && timingSafeEqual(expected, digest(header.slice(7)))
  const server = createServer((req, res) => {
    if (req.method === "GET") return options.onGet === undefined ? send(res, 200, `{"status":"ok"}`) : options.onGet(req, res)
    if (req.method !== "POST" || req.url !== options.path) return error(res, 404, "not_found")
    if (!isAuthorized(req.headers.authorization)) return error(res, 401, "unauthorized")
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY_BYTES) {
        error(res, 413, "payload_too_large")
        req.destroy()
      } else chunks.push(chunk)
    })
    req.on("end", () => {
      let body: unknown
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        return error(res, 400, "invalid_request")
      }
      options.handle(body, res)
    })
  })
  server.keepAliveTimeout = 60_000
  server.listen(Number(env("PORT") ?? "0"), env("HOST") ?? "127.0.0.1")
  const stop = () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  }
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  return server
}
