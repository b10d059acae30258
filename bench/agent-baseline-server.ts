/**
 * The least a plain `node:http` program does to answer `POST /agent/turn`
 * with the `builtin/echo` model (issue 25 §8, bench/agent-turn.ts): bearer
 * token compared in constant time (401), body read with a 1 MiB limit (413),
 * `JSON.parse` and checks of `channel`, `thread_id`, `message` (400), the
 * echo `LanguageModel.streamText` over `[system, user]` drained into the
 * reply, `JSON.stringify` of `{reply, session_id, used_tools, memory_written}`.
 * No session, history, memory, context report or storage: the HTTP floor of
 * a turn next to the gateway's.
 *
 * Run as a child process by bench/agent-turn.ts:
 * `AGENT_BASELINE_PORT=… AGENT_BASELINE_TOKEN=… node dist/bench/agent-baseline-server.js`.
 *
 * @module
 */
import { Effect, Stream } from "effect"
import type { LanguageModel } from "effect/ai"
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer, type ServerResponse } from "node:http"
import { makeEcho } from "../services/agent/providers/builtin.ts"

const HOST = process.env.AGENT_BASELINE_HOST ?? "127.0.0.1"
const PORT = Number(process.env.AGENT_BASELINE_PORT ?? "0")
const TOKEN = process.env.AGENT_BASELINE_TOKEN ?? ""
const MAX_BODY_BYTES = 1_048_576

if (TOKEN.length === 0) {
  console.error("agent-baseline-server: AGENT_BASELINE_TOKEN is required")
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
const error = (res: ServerResponse, status: number, code: string): void => send(res, status, `{"error":"${code}","message":"${code}"}`)

const model: LanguageModel.LanguageModel = Effect.runSync(makeEcho)

/** The echo model's streamed answer to `[system, user]`, drained into one text. */
const reply = (channel: string, threadId: string, message: string): Promise<string> =>
  Effect.runPromise(
    model.streamText({
      prompt: [
        { role: "system", content: `You are agent "default", answering on channel "${channel}" (thread "${threadId}").` },
        { role: "user", content: [{ type: "text", text: message }] }
      ]
    }).pipe(Stream.runFold(() => "", (text, part) => (part.type === "text-delta" ? text + part.delta : text)))
  )

const server = createServer((req, res) => {
  if (req.method === "GET") return send(res, 200, `{"status":"ok"}`)
  if (req.method !== "POST" || req.url !== "/agent/turn") return error(res, 404, "not_found")
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
    let body: { channel?: unknown; thread_id?: unknown; message?: unknown }
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
    } catch {
      return error(res, 400, "invalid_request")
    }
    const { channel, thread_id, message } = body ?? {}
    if (typeof channel !== "string" || typeof thread_id !== "string" || typeof message !== "string" || message.trim() === "") {
      return error(res, 400, "invalid_request")
    }
    reply(channel, thread_id, message).then(
      (text) => send(res, 200, JSON.stringify({ reply: text, session_id: thread_id, used_tools: [], memory_written: false })),
      () => error(res, 502, "provider_failed")
    )
  })
})
server.keepAliveTimeout = 60_000
server.listen(PORT, HOST)
