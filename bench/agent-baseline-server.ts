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
import { makeEcho } from "../services/agent/providers/builtin.ts"
import { error, send, serveBaseline } from "./baseline-http.ts"

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

serveBaseline({
  prefix: "AGENT_BASELINE",
  path: "/agent/turn",
  handle: (body, res) => {
    const { channel, thread_id, message } = (body ?? {}) as { channel?: unknown; thread_id?: unknown; message?: unknown }
    if (typeof channel !== "string" || typeof thread_id !== "string" || typeof message !== "string" || message.trim() === "") {
      return error(res, 400, "invalid_request")
    }
    reply(channel, thread_id, message).then(
      (text) => send(res, 200, JSON.stringify({ reply: text, session_id: thread_id, used_tools: [], memory_written: false })),
      () => error(res, 502, "provider_failed")
    )
  }
})
