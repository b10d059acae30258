/**
 * The agent's slash commands over WebSocket on a real gateway (issue 25 §3;
 * gateway-api.md message table `command.execute`; reference §5.3;
 * docs/agent.md "Slash commands"): every command, `/model` changing the model
 * of the next turn, `/stop` ending a turn that a local OpenAI-compatible
 * server holds open (while `/queue` counts the turn waiting behind it), the session settings `/queue` and `/send` store, the
 * refusals (`invalid_request` for text without `/`, an unknown command or a
 * bad argument; `forbidden` without operator.admin) and everything off
 * without SVC_AGENT_ENABLED (`unsupported_request`); the session settings
 * on PostgreSQL too when `SVC_TEST_DATABASE_URL` is set.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdirSync, writeFileSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, makeIdentity } from "../support/wsPeer.ts"

/**
 * A local OpenAI-compatible server whose answer to a message containing "hold" streams one chunk and then waits
 * until the client goes away (a turn that runs until `/stop`); other messages are answered at once.
 */
const slowServer = async () => {
  let held = 0
  const server = http.createServer((req, res) => {
    let text = ""
    req.on("data", (c) => (text += c))
    req.on("end", () => {
      const body = JSON.parse(text)
      const last = body.messages[body.messages.length - 1].content
      const message = typeof last === "string" ? last : last.map((p: any) => p.text).join("")
      res.writeHead(200, { "content-type": "text/event-stream" })
      const chunk = (delta: object, finish: string | null = null) =>
        res.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`)
      chunk({ role: "assistant", content: "" })
      if (message.includes("hold")) {
        chunk({ content: "partial " })
        held++
        return
      }
      chunk({ content: `quick: ${message}` })
      chunk({}, "stop")
      res.end("data: [DONE]\n\n")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    held: () => held,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))
  }
}

let gw: TestGateway
let off: TestGateway
let slow: Awaited<ReturnType<typeof slowServer>>
beforeAll(async () => {
  slow = await slowServer()
  gw = await startGateway({ agentEnabled: true, rateLimitMax: 10_000, openaiBaseUrl: slow.url })
  off = await startGateway()
})
afterAll(async () => {
  await gw.close()
  await off.close()
  await slow.close()
})

/** An operator peer with the admin token and a `command.execute` helper. */
const operator = async (g: TestGateway = gw) => {
  const { peer } = await connectPeer(g.url, g.adminToken)
  const run = (command: string, extra: Record<string, unknown> = {}) => peer.request("command.execute", { command, ...extra })
  const ok = async (command: string, extra: Record<string, unknown> = {}) => {
    const res = await run(command, extra)
    if (res.ok !== true) throw new Error(`${command}: ${JSON.stringify(res)}`)
    return res.result as { output: string; data?: any }
  }
  return { peer, run, ok }
}

const NAMES = ["/help", "/new", "/reset", "/stop", "/compact", "/status", "/presence", "/approvals", "/pairings", "/policy", "/context", "/usage", "/model", "/queue", "/send"]

describe("command.execute", () => {
  it("/help and /? list every command with one line of help", async () => {
    const { peer, ok } = await operator()
    const help = await ok("/help")
    expect(help.data.commands.map((c: any) => c.name)).toEqual(NAMES)
    for (const c of help.data.commands) {
      expect(help.output).toContain(c.usage)
      expect(c.help).not.toContain("\n")
    }
    expect(help.output.split("\n")).toHaveLength(NAMES.length)
    expect(await ok("/?")).toEqual(help)
    peer.ws.close()
  })

  it("refuses text without /, an unknown command (listing the known ones) and a bad argument", async () => {
    const { peer, run } = await operator()
    const plain = await run("hello")
    expect(plain).toMatchObject({ ok: false, error: { code: "invalid_request" } })
    const unknown = await run("/frobnicate now")
    expect(unknown).toMatchObject({ ok: false, error: { code: "invalid_request" } })
    for (const name of NAMES) expect(unknown.error.message).toContain(name)
    expect(unknown.error.message).toContain("/frobnicate")
    expect((await run("/queue sideways")).error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("collect") })
    expect((await run("/send maybe")).error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("inherit") })
    expect((await run("/model nonsense")).error.code).toBe("invalid_request")
    expect((await run("/status now")).error.code).toBe("invalid_request")
    expect((await run("")).error.code).toBe("invalid_request")
    peer.ws.close()
  })

  it("/model shows, sets (the next turn uses it and /context shows it) and resets the session's model", async () => {
    const home = gw.settings.home
    mkdirSync(join(home, "agents", "cmd-model"), { recursive: true })
    writeFileSync(join(home, "agents", "cmd-model", "script.yml"), "turns:\n  - reply: \"Scripted hello\"\n")
    const { peer, ok } = await operator()
    const where = { agent_id: "cmd-model", channel: "operator", thread_id: "m1" }
    const shown = await ok("/model", where)
    expect(shown.data).toMatchObject({ model: "builtin/echo", session_model: null, default_model: "builtin/echo", session: { session_id: null } })
    expect(shown.output).toContain("builtin/echo")

    const set = await ok("/model builtin/scripted", where)
    expect(set.data).toMatchObject({ model: "builtin/scripted", session_model: "builtin/scripted", session: { ...where } })
    expect(typeof set.data.session.session_id).toBe("string")
    const turn = await peer.request("session.send", { ...where, content: "Hi" })
    expect(turn).toMatchObject({ ok: true, result: { session_id: set.data.session.session_id, assistant_message: "Scripted hello" } })
    const context = await ok("/context", { agent_id: "cmd-model" })
    expect(context.data.report).toMatchObject({ model: "builtin/scripted", session_id: set.data.session.session_id, thread_id: "m1" })
    expect(context.output).toContain("builtin/scripted")
    // Another session of the agent keeps the default.
    expect((await ok("/model", { ...where, thread_id: "m2" })).data.model).toBe("builtin/echo")

    const reset = await ok("/model default", where)
    expect(reset.data).toMatchObject({ model: "builtin/echo", session_model: null })
    await peer.request("session.send", { ...where, content: "Echo again" })
    expect((await ok("/context", { agent_id: "cmd-model" })).data.report.model).toBe("builtin/echo")
    peer.ws.close()
  })

  it("/new and /reset start the session over; /compact says how many were dropped; /stop says nothing ran", async () => {
    const { peer, ok } = await operator()
    const where = { agent_id: "cmd-session", channel: "operator", thread_id: "s1" }
    expect((await ok("/compact", where)).data).toMatchObject({ dropped: 0, session: { session_id: null } })
    for (let i = 0; i < 4; i++) await peer.request("session.send", { ...where, content: `message ${i}` })
    // 8 messages; /compact keeps the newest 4.
    const compacted = await ok("/compact", where)
    expect(compacted.data.dropped).toBe(4)
    expect(compacted.output).toContain("4")
    await peer.request("session.send", { ...where, content: "after compact" })
    expect((await ok("/context", { agent_id: "cmd-session" })).data.report.history).toEqual({ messages: 4, dropped: 0 })

    const stopped = await ok("/stop", where)
    expect(stopped.data.stopped).toBe(false)
    expect(stopped.output).toMatch(/no turn/i)
    expect((await ok("/stop", { ...where, thread_id: "never" })).data).toMatchObject({ stopped: false, session: { session_id: null } })

    for (const command of ["/new", "/reset"]) {
      await peer.request("session.send", { ...where, content: "something to forget" })
      const fresh = await ok(command, where)
      expect(fresh.output).toMatch(/new session/i)
      expect(fresh.data.session.session_id).toBe(compacted.data.session.session_id)
      await peer.request("session.send", { ...where, content: "fresh" })
      expect((await ok("/context", { agent_id: "cmd-session" })).data.report.history).toEqual({ messages: 0, dropped: 0 })
    }
    peer.ws.close()
  })

  it("/stop stops the running turn (its reply so far is kept) while /queue counts the turn waiting behind it", async () => {
    const { peer, ok } = await operator()
    const agent = "cmd-stop"
    const secret = await readJson(await postJson(gw, `/secrets?agent_id=${agent}`, { scope: "openai-key", value: "sk-cmd-stop" }, gw.adminToken))
    const profile = await postJson(gw, "/auth/profiles", { agent_id: agent, provider: "openai", type: "api_key", secret_handles: { api_key: secret.handle.handle_id } }, gw.adminToken)
    expect(profile.status).toBe(201)
    const where = { agent_id: agent, channel: "operator", thread_id: "stop" }
    await ok("/model openai/slow-model", where)

    /** Sends `session.send` and answers its response (waiting as long as the turn runs). */
    const send = (content: string) => {
      const request_id = `send-${content}`
      peer.send({ request_id, type: "session.send", payload: { ...where, content } })
      return peer.next((m) => m?.request_id === request_id && "ok" in m, 30_000)
    }
    const held = send("hold on")
    await peer.next((m) => m?.type === "message.delta" && m.payload?.thread_id === "stop" && m.payload.delta === "partial ", 30_000)
    expect(slow.held()).toBe(1)
    const behind = send("then this")
    await eventually(async () => (await ok("/queue", where)).data.waiting === 1, "the second turn waiting")

    const stopped = await ok("/stop", where)
    expect(stopped).toMatchObject({ output: "Stopped the running turn.", data: { stopped: true } })
    expect(await held).toMatchObject({ ok: true, result: { assistant_message: "partial " } })
    expect(await behind).toMatchObject({ ok: true, result: { assistant_message: "quick: then this" } })
    expect((await ok("/queue", where)).data.waiting).toBe(0)
    expect((await ok("/stop", where)).data.stopped).toBe(false)
    const context = await ok("/context", { agent_id: agent })
    expect(context.data.report).toMatchObject({ model: "openai/slow-model", history: { messages: 2, dropped: 0 } })
    peer.ws.close()
  })

  it("/queue and /send show the defaults and store the session's setting", async () => {
    const { peer, ok } = await operator()
    const where = { agent_id: "cmd-settings" }
    expect((await ok("/queue", where)).data).toMatchObject({ queue_mode: "followup", waiting: 0, session: { session_id: null, channel: "operator", thread_id: "console" } })
    expect((await ok("/send", where)).data).toMatchObject({ send_policy: "inherit" })
    const queued = await ok("/queue steer", where)
    expect(queued.data).toMatchObject({ queue_mode: "steer", waiting: 0 })
    expect(queued.output).toContain("steer")
    expect((await ok("/send off", where)).data.send_policy).toBe("off")
    const queue = await ok("/queue", where)
    expect(queue.data).toMatchObject({ queue_mode: "steer", waiting: 0, session: { session_id: queued.data.session.session_id } })
    expect(queue.output).toMatch(/steer.*0 turns waiting/)
    expect((await ok("/send", where)).data.send_policy).toBe("off")
    expect((await ok("/queue INTERRUPT", where)).data.queue_mode).toBe("interrupt")
    expect((await ok("/send", where)).data.send_policy).toBe("off")
    // Another thread has its own settings.
    expect((await ok("/queue", { ...where, thread_id: "other" })).data.queue_mode).toBe("followup")
    peer.ws.close()
  })

  it("/status, /presence, /policy, /usage and /context report the agent and the gateway", async () => {
    const { peer, ok } = await operator()
    expect((await ok("/context", { agent_id: "cmd-quiet" })).data).toEqual({ report: null })
    await peer.request("session.send", { agent_id: "cmd-status", channel: "operator", thread_id: "st", content: "status please" })
    const status = await ok("/status", { agent_id: "cmd-status" })
    expect(status.data).toMatchObject({ agent_id: "cmd-status", model: "builtin/echo", provider: { id: "builtin", ready: true }, session_count: 1 })
    expect(status.output).toContain("builtin/echo")

    const presence = await ok("/presence")
    expect(presence.data.entries[0]).toMatchObject({ role: "gateway", reason: "self" })
    const viaHttp = await readJson(await gw.fetch("/presence", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(presence.data.entries.map((e: any) => e.instance_id)).toEqual(viaHttp.entries.map((e: any) => e.instance_id))

    const policy = await ok("/policy")
    const bundle = await readJson(await gw.fetch("/policy/bundle", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(policy.data).toMatchObject({ sha256: bundle.effective.sha256, sources: bundle.effective.sources })
    expect(policy.output).toContain(bundle.effective.sha256)

    const usage = await ok("/usage", { agent_id: "cmd-status" })
    expect(usage.data).toMatchObject({ status: "ok", scope: { kind: "agent", agent_id: "cmd-status" } })
    expect(usage.data.totals).toEqual(
      (await readJson(await gw.fetch("/usage?agent_id=cmd-status", { headers: { authorization: `Bearer ${gw.adminToken}` } }))).totals
    )

    const context = await ok("/context", { agent_id: "cmd-status" })
    expect(context.data.report).toMatchObject({ model: "builtin/echo", thread_id: "st", sections: ["identity"], memory: { keyword_hits: 0, semantic_hits: 0 } })
    peer.ws.close()
  })

  it("/approvals and /pairings list what waits for a decision", async () => {
    const { peer, ok } = await operator()
    expect((await ok("/approvals")).data).toEqual({ approvals: [] })
    expect((await ok("/pairings")).data).toEqual({ pairings: [] })

    const plan = await postJson(gw, "/plan", { request_id: "cmd-plan", trigger: { channel: "telegram", thread_id: "t-1", message: { text: "Order the usual flowers" } } }, gw.adminToken)
    const approvalId = (await readJson(plan)).escalation.approval_id
    const approvals = await ok("/approvals")
    expect(approvals.data.approvals.map((a: any) => a.id)).toEqual([approvalId])
    expect(approvals.output).toContain(`#${approvalId}`)

    const identity = makeIdentity()
    const node = await connectPeer(gw.url, gw.adminToken, { role: "node", identity, capabilities: [{ id: "cli.exec", version: "1.0.0" }] })
    const requested = await peer.next((m) => m?.type === "pairing.requested" && m.payload.pairing.node.node_id === identity.deviceId)
    const pairings = await ok("/pairings")
    expect(pairings.data.pairings.map((p: any) => p.pairing_id)).toEqual([requested.payload.pairing.pairing_id])
    expect(pairings.output).toContain(identity.deviceId)
    node.peer.ws.close()
    peer.ws.close()
  })

  it("needs operator.admin: a device token without it is forbidden", async () => {
    const identity = makeIdentity()
    const issued = await postJson(gw, "/auth/device-tokens/issue", { device_id: identity.deviceId, role: "client", scopes: ["operator.read", "operator.write"] }, gw.adminToken)
    const { peer } = await connectPeer(gw.url, (await readJson(issued)).token, { identity })
    expect(await peer.request("command.execute", { command: "/help" })).toMatchObject({ ok: false, error: { code: "forbidden" } })
    peer.ws.close()

    const admin = makeIdentity()
    const withAdmin = await postJson(gw, "/auth/device-tokens/issue", { device_id: admin.deviceId, role: "client", scopes: ["operator.admin"] }, gw.adminToken)
    const allowed = await connectPeer(gw.url, (await readJson(withAdmin)).token, { identity: admin })
    expect(await allowed.peer.request("command.execute", { command: "/help" })).toMatchObject({ ok: true })
    allowed.peer.ws.close()
  })

  it("is off without SVC_AGENT_ENABLED: unsupported_request", async () => {
    const { peer, run } = await operator(off)
    expect(await run("/help")).toMatchObject({ ok: false, error: { code: "unsupported_request", message: expect.stringContaining("command.execute") } })
    peer.ws.close()
  })
})

describe.skipIf(postgres === undefined)("command.execute on PostgreSQL", () => {
  it("stores and updates the session settings (/queue, /send) and the model (/model)", async () => {
    const pg = await startGateway({ agentEnabled: true }, postgres!.make())
    try {
      const { peer, ok } = await operator(pg)
      expect((await ok("/queue collect")).data.queue_mode).toBe("collect")
      expect((await ok("/send on")).data.send_policy).toBe("on")
      expect((await ok("/queue steer_backlog")).data.queue_mode).toBe("steer_backlog")
      expect((await ok("/queue")).data.queue_mode).toBe("steer_backlog")
      expect((await ok("/send")).data.send_policy).toBe("on")
      expect((await ok("/model builtin/echo")).data.session_model).toBe("builtin/echo")
      peer.ws.close()
    } finally {
      await pg.close()
    }
  })
})
