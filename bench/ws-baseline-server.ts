/**
 * The WebSocket baseline: the least a plain `ws` server can do for the same
 * round trip as the gateway's JSON `ping`: bearer check at the upgrade,
 * `JSON.parse` of each message, a shape check of the request envelope, and a
 * `JSON.stringify`d response `{request_id, type, ok:true}`. No handshake.
 * For the fan-out measure, a `capability.ready` request is also broadcast to
 * every other socket as one event envelope serialized once (what the
 * gateway's EventBus does), before its response.
 *
 * Usage: node dist/bench/ws-baseline-server.js <port> (token in BENCH_TOKEN).
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import { WebSocketServer } from "ws"

const port = Number(process.argv[2])
const expected = createHash("sha256").update(process.env.BENCH_TOKEN ?? "").digest()
const server = createServer((_req, res) => res.end("ok"))
const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, clientTracking: false, maxPayload: 1_048_576 })
const sockets = new Set<import("ws").WebSocket>()

server.on("upgrade", (req, socket, head) => {
  const header = req.headers.authorization ?? ""
  const token = header.startsWith("Bearer ") ? header.slice(7) : ""
  if (!timingSafeEqual(expected, createHash("sha256").update(token).digest())) {
    socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
    return
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    sockets.add(ws)
    ws.on("close", () => sockets.delete(ws))
    ws.on("message", (data) => {
      let message: unknown
      try {
        message = JSON.parse(data.toString())
      } catch {
        ws.send(JSON.stringify({ type: "error", payload: { code: "invalid_json" } }))
        return
      }
      const m = message as { request_id?: unknown; type?: unknown }
      if (typeof m !== "object" || m === null || typeof m.request_id !== "string" || typeof m.type !== "string") {
        ws.send(JSON.stringify({ type: "error", payload: { code: "invalid_message" } }))
        return
      }
      if (m.type === "capability.ready") {
        const payload = (message as { payload?: unknown }).payload
        const text = JSON.stringify({ event_id: randomUUID(), type: m.type, occurred_at: new Date().toISOString(), payload })
        for (const other of sockets) if (other !== ws) other.send(text)
      }
      ws.send(JSON.stringify({ request_id: m.request_id, type: m.type, ok: true }))
    })
  })
})
server.listen(port, "127.0.0.1")
process.on("SIGTERM", () => process.exit(0))
