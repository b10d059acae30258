/**
 * A local messenger Bot API for tests (docs/messenger.md "Delivery"): it
 * answers `POST /bot<token>/<method>` the Bot API's way (`{ok: true, result}`;
 * `sendMessage` with a new `message_id`) and records each call, so tests
 * check what the gateway sent through the real `MessengerClient`.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"

/** One Bot API call as received. */
export interface BotCall {
  readonly token: string
  readonly method: string
  readonly body: any
  /** The `message_id` a `sendMessage` was answered with. */
  messageId?: number
}

/** A running {@link startMessengerServer}. */
export interface MessengerServer {
  /** `http://127.0.0.1:<port>` (no trailing slash): the gateway's `MESSENGER_API_URL`. */
  readonly url: string
  readonly calls: Array<BotCall>
  /** The calls of one method, oldest first. */
  readonly callsOf: (method: string) => Array<BotCall>
  /** The next `count` calls answer `status` with `{ok: false}` (e.g. 502, to exercise the retries). */
  readonly failNext: (count: number, status: number) => void
  readonly close: () => Promise<void>
}

/** Starts the server on 127.0.0.1, port 0. */
export const startMessengerServer = async (): Promise<MessengerServer> => {
  const calls: Array<BotCall> = []
  let failures = 0
  let failStatus = 500
  let nextMessageId = 1000
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(req.url ?? "")
      const answer = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body))
      if (match === null || req.method !== "POST") return answer(404, { ok: false, error_code: 404, description: "Not Found" })
      if (failures > 0) {
        failures--
        return answer(failStatus, { ok: false, error_code: failStatus, description: "Bad Gateway" })
      }
      let body: any = {}
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"))
      } catch {
        return answer(400, { ok: false, error_code: 400, description: "Bad Request: invalid JSON" })
      }
      const call: BotCall = { token: match[1], method: match[2], body }
      calls.push(call)
      switch (match[2]) {
        case "sendMessage":
          call.messageId = ++nextMessageId
          return answer(200, { ok: true, result: { message_id: call.messageId, chat: { id: Number(body.chat_id) }, text: body.text } })
        case "editMessageText":
          return answer(200, { ok: true, result: { message_id: body.message_id, text: body.text } })
        default:
          return answer(200, { ok: true, result: true })
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    callsOf: (method) => calls.filter((call) => call.method === method),
    failNext: (count, status) => {
      failures = count
      failStatus = status
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/** A Bot API text message update from `chatId` (a private chat when positive, else a group). */
export const textUpdate = (chatId: number, messageId: number, text: string, extra: Record<string, unknown> = {}) => ({
  update_id: messageId,
  message: {
    message_id: messageId,
    date: 1767225600 + messageId,
    chat: chatId > 0 ? { id: chatId, type: "private", username: `user${chatId}` } : { id: chatId, type: "supergroup", title: "Ops" },
    from: { id: Math.abs(chatId), is_bot: false, first_name: "Ada", username: `user${Math.abs(chatId)}` },
    text,
    ...extra
  }
})
