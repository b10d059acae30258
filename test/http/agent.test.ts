/**
 * The agent runtime over HTTP and WebSocket on a real gateway (issue 25 §2–4;
 * gateway-api.md "Agent runtime"): a turn with the built-in echo model, the
 * session stable per (agent, channel, thread), `/new`, the context report
 * routes, the status, the request rules (400), provider failures (502 naming
 * the provider, never a credential), a turn against a local server that
 * speaks OpenAI's chat completions with the API key from a secret through an
 * auth profile, `session.send` with its streamed events, and everything off
 * without SVC_AGENT_ENABLED (404, `unsupported_request`).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

const API_KEY = "sk-agent-test-SECRET-4242"

/** A local OpenAI-compatible server: streams `reply` (or answers `status` with an error), recording each request. */
const openAiServer = async () => {
  const seen: Array<{ path: string; authorization: string | undefined; body: any }> = []
  let failWith: number | undefined
  const server = http.createServer((req, res) => {
    let text = ""
    req.on("data", (c) => (text += c))
    req.on("end", () => {
      const body = JSON.parse(text)
      seen.push({ path: req.url ?? "", authorization: req.headers.authorization, body })
      if (failWith !== undefined) {
        res.writeHead(failWith, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "The model is overloaded", type: "server_error" } }))
        return
      }
      const last = body.messages[body.messages.length - 1].content
      const reply = `You said: ${typeof last === "string" ? last : last.map((p: any) => p.text).join("")}`
      res.writeHead(200, { "content-type": "text/event-stream" })
      const chunk = (delta: object, extra: object = {}) =>
        res.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: null }], ...extra })}\n\n`)
      chunk({ role: "assistant", content: "" })
      for (const word of reply.split(/(?<= )/)) chunk({ content: word })
      res.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: body.model, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\n`)
      res.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: body.model, choices: [], usage: { prompt_tokens: 12, completion_tokens: 4, total_tokens: 16 } })}\n\n`)
      res.end("data: [DONE]\n\n")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    fail: (status: number | undefined) => (failWith = status),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))
  }
}

let gw: TestGateway
let off: TestGateway
let oa: TestGateway
let provider: Awaited<ReturnType<typeof openAiServer>>
beforeAll(async () => {
  provider = await openAiServer()
  gw = await startGateway({ agentEnabled: true, openaiBaseUrl: provider.url, rateLimitMax: 10_000 })
  off = await startGateway()
  oa = await startGateway({ agentEnabled: true, agentModel: "openai/gpt-4.1-mini", openaiBaseUrl: provider.url })
})
afterAll(async () => {
  await gw.close()
  await off.close()
  await oa.close()
  await provider.close()
})

const get = (g: TestGateway, path: string) => fetch(`${g.url}${path}`, { headers: { authorization: `Bearer ${g.adminToken}` } })

describe("the agent runtime", () => {
  it("answers a turn with builtin/echo, keeps the session per thread, reports its context, and starts over on /new", async () => {
    const first = await postJson(gw, "/agent/turn", { channel: "operator", thread_id: "t1", message: "Hello, agent" }, gw.adminToken)
    expect(first.status).toBe(200)
    const a = await readJson(first)
    expect(a).toMatchObject({ reply: "Hello, agent", used_tools: [], memory_written: false })
    const again = await readJson(await postJson(gw, "/agent/turn", { channel: "operator", thread_id: "t1", message: "Second" }, gw.adminToken))
    expect(again.session_id).toBe(a.session_id)
    const other = await readJson(await postJson(gw, "/agent/turn", { channel: "operator", thread_id: "t2", message: "Other" }, gw.adminToken))
    expect(other.session_id).not.toBe(a.session_id)

    const last = await readJson(await get(gw, "/context?agent_id=default"))
    expect(last).toMatchObject({ status: "ok", report: { session_id: other.session_id, thread_id: "t2", channel: "operator", agent_id: "default", model: "builtin/echo" } })
    expect(last.report.memory).toEqual({ keyword_hits: 0, semantic_hits: 0 })
    const list = await readJson(await get(gw, `/context/list?session_id=${a.session_id}`))
    expect(list.reports.map((r: any) => r.session_id)).toEqual([a.session_id, a.session_id])
    expect(list.reports[0].history).toEqual({ messages: 2, dropped: 0 })
    const detail = await readJson(await get(gw, `/context/detail/${list.reports[1].context_report_id}`))
    expect(detail.report).toEqual(list.reports[1])
    expect((await get(gw, "/context/detail/nope")).status).toBe(404)

    const reset = await readJson(await postJson(gw, "/agent/turn", { channel: "operator", thread_id: "t1", message: "/new" }, gw.adminToken))
    expect(reset.session_id).toBe(a.session_id)
    expect(reset.reply).toMatch(/new session/i)
    await postJson(gw, "/agent/turn", { channel: "operator", thread_id: "t1", message: "Fresh" }, gw.adminToken)
    const fresh = await readJson(await get(gw, `/context/list?session_id=${a.session_id}&limit=1`))
    expect(fresh.reports[0].history).toEqual({ messages: 0, dropped: 0 })

    const status = await readJson(await get(gw, "/agent/status"))
    expect(status).toMatchObject({ status: "ok", agent_id: "default", enabled: true, model: "builtin/echo", provider: { id: "builtin", ready: true } })
    expect(status.session_count).toBe(2)
    expect(typeof status.last_turn_at).toBe("string")
  })

  it("puts the agent's memory hits into the turn and counts them in the report", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    await peer.request("memory.create", { item: { agent_id: "mem-agent", kind: "note", title: "Deploy window", body_md: "Deploys happen on Tuesdays." } })
    const turn = await readJson(await postJson(gw, "/agent/turn", { agent_id: "mem-agent", channel: "operator", thread_id: "m", message: "When is the deploy window?" }, gw.adminToken))
    const report = (await readJson(await get(gw, `/context/list?session_id=${turn.session_id}`))).reports[0]
    expect(report.memory.keyword_hits).toBe(1)
    expect(report.system_prompt.sections.map((s: any) => s.id)).toEqual(["identity", "memory"])
    peer.ws.close()
  })

  it("refuses bad requests with 400 and provider failures with 502 naming the provider, never the key", async () => {
    const missing = await postJson(gw, "/agent/turn", { channel: "operator", message: "hi" }, gw.adminToken)
    expect(missing.status).toBe(400)
    expect(await readJson(missing)).toMatchObject({ error: "invalid_request", message: expect.stringContaining("thread_id") })
    const envelope = {
      message_id: "1", received_at: "2026-11-27T10:00:00Z", delivery: { channel: "messenger" }, container: { kind: "dm", id: "chat-1" },
      sender: { id: "u1" }, content: { text: "from the envelope" }
    }
    const mismatch = await postJson(gw, "/agent/turn", { envelope, thread_id: "other" }, gw.adminToken)
    expect(mismatch.status).toBe(400)
    const enveloped = await readJson(await postJson(gw, "/agent/turn", { envelope }, gw.adminToken))
    expect(enveloped.reply).toBe("from the envelope")
  })

  it("runs a turn against an OpenAI-compatible server with the key from a secret through an auth profile", async () => {
    const turn = () => postJson(oa, "/agent/turn", { agent_id: "oa", channel: "operator", thread_id: "o", message: "Hi there" }, oa.adminToken)
    const noProfile = await turn()
    expect(noProfile.status).toBe(502)
    const refused = await readJson(noProfile)
    expect(refused.error).toBe("agent_runtime_error")
    expect(refused.message).toMatch(/^openai: no credential for openai\/gpt-4\.1-mini/)
    const notReady = await readJson(await get(oa, "/agent/status?agent_id=oa"))
    expect(notReady.provider).toMatchObject({ id: "openai", ready: false })

    const secret = await readJson(await postJson(oa, "/secrets?agent_id=oa", { scope: "openai-key", value: API_KEY }, oa.adminToken))
    const profile = await postJson(oa, "/auth/profiles", {
      agent_id: "oa", provider: "openai", type: "api_key", secret_handles: { api_key: secret.handle.handle_id }
    }, oa.adminToken)
    expect(profile.status).toBe(201)
    expect((await readJson(await get(oa, "/agent/status?agent_id=oa"))).provider).toEqual({ id: "openai", ready: true })

    const answered = await turn()
    expect(answered.status).toBe(200)
    expect(await readJson(answered)).toMatchObject({ reply: "You said: Hi there", used_tools: [] })
    const request = provider.seen[provider.seen.length - 1]
    expect(request.path).toBe("/v1/chat/completions")
    expect(request.authorization).toBe(`Bearer ${API_KEY}`)
    expect(request.body).toMatchObject({ model: "gpt-4.1-mini", stream: true, stream_options: { include_usage: true } })
    expect(request.body.messages[0].role).toBe("system")
    const report = (await readJson(await get(oa, "/context?agent_id=oa"))).report
    // gpt-4.1-mini's catalog price ($0.40 / $1.60 per 1M tokens): 12 × 0.4 + 4 × 1.6 = 11.2 → 11 micro-dollars.
    expect(report.usage).toMatchObject({ input_tokens: 12, output_tokens: 4, total_tokens: 16 })
    expect(report.usage.usd_micros).toBeGreaterThan(0)
    const usage = await readJson(await get(oa, "/usage?agent_id=oa"))
    expect(usage.totals).toMatchObject({ agent_turns: 1, input_tokens: 12, output_tokens: 4, total_tokens: 16, usd_micros: report.usage.usd_micros })

    provider.fail(500)
    const failed = await turn()
    provider.fail(undefined)
    expect(failed.status).toBe(502)
    const error = await readJson(failed)
    expect(error.error).toBe("agent_runtime_error")
    expect(error.message).toMatch(/^openai: .*overloaded/)
    expect(JSON.stringify(error)).not.toContain(API_KEY)
  })

  it("keeps the built model only while its profile resolves to the same key: disabled, rotated, re-enabled", async () => {
    const turn = () => postJson(oa, "/agent/turn", { agent_id: "oa2", channel: "operator", thread_id: "k", message: "again" }, oa.adminToken)
    const lastKey = () => provider.seen[provider.seen.length - 1]!.authorization
    const secret = await readJson(await postJson(oa, "/secrets?agent_id=oa2", { scope: "openai-key", value: `${API_KEY}-1` }, oa.adminToken))
    const profile = await readJson(await postJson(oa, "/auth/profiles", {
      agent_id: "oa2", provider: "openai", type: "api_key", secret_handles: { api_key: secret.handle.handle_id }
    }, oa.adminToken))
    const profileId = profile.profile.auth_profile_id as string
    expect((await turn()).status).toBe(200)
    expect((await turn()).status).toBe(200)
    expect(lastKey()).toBe(`Bearer ${API_KEY}-1`)

    // Disabled: the very next turn has no credential, though a model was built with it.
    expect((await postJson(oa, `/auth/profiles/${profileId}/disable`, { reason: "test" }, oa.adminToken)).status).toBe(200)
    const refused = await turn()
    expect(refused.status).toBe(502)
    expect((await readJson(refused)).message).toMatch(/^openai: no credential/)

    // Rotated while disabled, then enabled: the next turn sends the new key, not the kept model's.
    const rotated = await postJson(oa, `/secrets/${secret.handle.handle_id}/rotate`, { value: `${API_KEY}-2` }, oa.adminToken)
    expect(rotated.status).toBe(201)
    expect((await postJson(oa, `/auth/profiles/${profileId}/enable`, {}, oa.adminToken)).status).toBe(200)
    expect((await turn()).status).toBe(200)
    expect(lastKey()).toBe(`Bearer ${API_KEY}-2`)
  })

  it("stores a new thread's session with its first exchange: concurrent first turns share it, a failed one keeps it", async () => {
    const first = (message: string) =>
      postJson(gw, "/agent/turn", { agent_id: "fresh", channel: "operator", thread_id: "together", message }, gw.adminToken).then(readJson)
    const [a, b] = await Promise.all([first("one"), first("two")])
    expect(new Set([a.reply, b.reply])).toEqual(new Set(["one", "two"]))
    expect(a.session_id).toBe(b.session_id)
    const reports = (await readJson(await get(gw, `/context/list?session_id=${a.session_id}`))).reports
    expect(reports.map((r: any) => r.history.messages).sort()).toEqual([0, 2])
    expect((await readJson(await get(gw, "/agent/status?agent_id=fresh"))).session_count).toBe(1)

    // No credential: the first turn fails (502), its session stays as it would have before the turn.
    const failed = await postJson(oa, "/agent/turn", { agent_id: "nokey", channel: "operator", thread_id: "n", message: "hi" }, oa.adminToken)
    expect(failed.status).toBe(502)
    expect((await readJson(await get(oa, "/agent/status?agent_id=nokey"))).session_count).toBe(1)
  })

  it("streams typing and message events over session.send", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const sent = await peer.request("session.send", { channel: "console", thread_id: "s1", content: "stream me please" })
    expect(sent).toMatchObject({ ok: true, result: { assistant_message: "stream me please" } })
    const started = await peer.next((m: any) => m?.type === "typing.started" && m.payload?.thread_id === "s1")
    expect(started.payload.session_id).toBe(sent.result.session_id)
    const delta = await peer.next((m: any) => m?.type === "message.delta" && m.payload?.thread_id === "s1")
    expect("stream me please".startsWith(delta.payload.delta)).toBe(true)
    const final = await peer.next((m: any) => m?.type === "message.final" && m.payload?.thread_id === "s1")
    expect(final.payload).toMatchObject({ content: "stream me please", used_tools: [] })
    await peer.next((m: any) => m?.type === "typing.stopped" && m.payload?.thread_id === "s1")
    await peer.next((m: any) => m?.type === "context_report.created" && m.payload?.session_id === sent.result.session_id)
    peer.ws.close()
  })

  it("is off without SVC_AGENT_ENABLED: routes 404, session.send unsupported_request", async () => {
    expect((await postJson(off, "/agent/turn", { channel: "c", thread_id: "t", message: "m" }, off.adminToken)).status).toBe(404)
    expect((await get(off, "/agent/status")).status).toBe(404)
    expect((await get(off, "/context")).status).toBe(404)
    const { peer } = await connectPeer(off.url, off.adminToken)
    const sent = await peer.request("session.send", { channel: "c", thread_id: "t", content: "m" })
    expect(sent).toMatchObject({ ok: false, error: { code: "unsupported_request" } })
    peer.ws.close()
  })
})
