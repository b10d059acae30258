/**
 * The MCP server at `/mcp` (issue 25 §6; services/mcp): a real gateway and
 * effect/ai's `McpClient` over Streamable HTTP with a bearer token, as an
 * external agent would connect. Tools listed; policy_check answers what
 * `POST /policy/check` answers; request_approval appears in `GET /approvals`
 * and answers approved / denied once an operator decides over HTTP, expired
 * at its timeout (test clock); memory round trip; audit_append joins its
 * plan's chain (valid), refused for gateway chains and unknown plans;
 * 401 without a token; `forbidden` tool errors for missing scopes; the
 * read-only list_approvals / list_runs / list_nodes answer what their HTTP
 * routes answer, with the routes' scopes.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { McpClient, McpProtocol, type McpSchema } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { TestClock } from "effect/testing"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway({ rateLimitMax: 10_000 })
})
afterAll(() => gw.close())

type Protocol = McpProtocol.ProtocolAdapter<McpClient.ProtocolVersion>

/** Runs `use` with a connected MCP client of `target` (bearer `token` when given). */
const withClient = <A>(
  target: TestGateway,
  token: string | undefined,
  use: (client: McpClient.McpClient) => Effect.Effect<A, unknown>,
  protocol: Protocol = McpProtocol.v2025_11_25
): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function*() {
      const client = yield* McpClient.make({ name: "external-agent", version: "1.0.0", timeout: "10 seconds" })
      return yield* use(client)
    }).pipe(
      Effect.provide(Layer.effect(McpClient.Transport)(McpClient.http({
        url: `${target.url}/mcp`,
        protocol,
        ...(token !== undefined ? { headers: { authorization: `Bearer ${token}` } } : {})
      }))),
      Effect.scoped,
      Effect.provide(FetchHttpClient.layer)
    )
  )

/** Calls tool `name` with `args`: the raw result (`isError`, `structuredContent`, `content`). */
const callTool = (client: McpClient.McpClient, name: string, args: Record<string, unknown>) =>
  Effect.gen(function*() {
    const tools = yield* client.listTools()
    const tool = tools.find((t) => t.name === name)
    if (tool === undefined) return yield* Effect.die(new Error(`no tool ${name}`))
    return yield* client.callTool({ tool, arguments: args })
  })

/** A tool error's `{error, message}` (its text content). */
const toolError = (result: McpSchema.CallToolResult): { error: string; message: string } => {
  expect(result.isError).toBe(true)
  const text = result.content.find((c) => c.type === "text") as { text: string }
  return JSON.parse(text.text)
}

const call = (target: TestGateway, token: string | undefined, name: string, args: Record<string, unknown>) =>
  withClient(target, token, (client) => callTool(client, name, args))

const deviceToken = async (target: TestGateway, scopes: ReadonlyArray<string>) => {
  const res = await postJson(target, "/auth/device-tokens/issue", { device_id: `mcp-${scopes.join("-") || "none"}`, role: "client", scopes }, target.adminToken)
  expect(res.status).toBe(201)
  return (await readJson(res)).token as string
}

const pendingMcpApprovals = async (target: TestGateway): Promise<Array<any>> => {
  const body = await readJson(await target.fetch("/approvals", { headers: { authorization: `Bearer ${target.adminToken}` } }))
  return (body.approvals as Array<any>).filter((a) => a.kind === "mcp_request")
}

/** Waits (bounded) until a pending `mcp_request` approval with `prompt` is listed. */
const waitForApproval = async (target: TestGateway, prompt: string) => {
  for (let i = 0; i < 200; i++) {
    const found = (await pendingMcpApprovals(target)).find((a) => a.prompt === prompt)
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  throw new Error(`approval "${prompt}" never appeared`)
}

describe("MCP at /mcp", () => {
  it("lists the eight tools with their JSON Schemas (2025-11-25 and the sessionless 2026-07-28)", async () => {
    for (const protocol of [McpProtocol.v2025_11_25, McpProtocol.v2026_07_28] as const) {
      const tools = await withClient(gw, gw.adminToken, (client) => client.listTools(), protocol)
      expect(tools.map((t) => t.name).sort()).toEqual([
        "audit_append",
        "list_approvals",
        "list_nodes",
        "list_runs",
        "memory_search",
        "memory_write",
        "policy_check",
        "request_approval"
      ])
      const approval = tools.find((t) => t.name === "request_approval")!
      expect(Object.keys((approval.inputSchema as any).properties).sort()).toEqual(["context", "prompt", "timeout_ms"])
    }
  })

  it("answers 401 without a token, or with a bad one, like any route; 405 to GET; 403 to a browser origin", async () => {
    const initialize = (authorization?: string) =>
      gw.fetch("/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...(authorization !== undefined ? { authorization } : {})
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } }
        })
      })
    for (const authorization of [undefined, "Bearer not-a-token"]) {
      const res = await initialize(authorization)
      expect(res.status).toBe(401)
      expect((await readJson(res)).error).toBe("unauthorized")
    }
    await expect(withClient(gw, undefined, (client) => client.listTools())).rejects.toThrow()
    // Authenticated: the MCP transport's own answers (GET is not served; browser origins are refused).
    expect((await gw.fetch("/mcp", { headers: { authorization: `Bearer ${gw.adminToken}` } })).status).toBe(405)
    expect((await initialize(`Bearer ${gw.adminToken}`)).status).toBe(200)
    const fromBrowser = await gw.fetch("/mcp", {
      method: "POST",
      headers: { authorization: `Bearer ${gw.adminToken}`, origin: "https://evil.example", "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: "{}"
    })
    expect(fromBrowser.status).toBe(403)
  })

  it("policy_check answers exactly what POST /policy/check answers", async () => {
    const request = {
      spend: { amount_minor_units: 15_000, currency: "EUR" },
      pii: { categories: ["basic_contact"] },
      connector: { scope: "mcp://calendar" }
    }
    const result = await call(gw, gw.adminToken, "policy_check", request)
    expect(result.isError).toBeFalsy()
    const http = await readJson(await postJson(gw, "/policy/check", request, gw.adminToken))
    expect(result.structuredContent).toEqual(http)
    expect(http.decision).toBe("require_approval")
  })

  it("request_approval: listed in GET /approvals, approved over HTTP → approved; denied → denied", async () => {
    const token = await deviceToken(gw, ["operator.write"])
    for (const decision of ["approved", "denied"] as const) {
      const prompt = `Deploy to production? (${decision})`
      const answer = call(gw, token, "request_approval", { prompt, context: { service: "api" }, timeout_ms: 60_000 })
      const approval = await waitForApproval(gw, prompt)
      expect(approval.plan_id).toBe("gateway.mcp")
      expect(approval.context).toMatchObject({ source: "mcp", request: { service: "api" }, requested_by: { kind: "device" } })
      const res = await postJson(gw, `/approvals/${approval.id}/respond`, { decision }, gw.adminToken)
      expect(res.status).toBe(200)
      const result = await answer
      expect(result.isError).toBeFalsy()
      expect(result.structuredContent).toEqual({ approval_id: approval.id, decision })
    }
  })

  it("request_approval reaches WebSocket operators as approval.request; their answer decides the tool's", async () => {
    const { peer } = await connectPeer(gw.url, gw.adminToken)
    const prompt = "Rotate the API key?"
    const answer = call(gw, gw.adminToken, "request_approval", { prompt, timeout_ms: 60_000 })
    const ask = await peer.next((m: any) => m?.type === "approval.request" && !("ok" in m) && m.payload?.prompt === prompt)
    const id = ask.payload.approval_id as number
    expect(ask.payload).toMatchObject({ plan_id: "gateway.mcp", context: { source: "mcp", requested_by: { kind: "admin" } } })
    peer.send({ request_id: ask.request_id, type: "approval.request", ok: true, result: { approved: true, reason: "fine" } })
    expect((await answer).structuredContent).toEqual({ approval_id: id, decision: "approved" })
    peer.ws.close()
  })

  it("request_approval refuses a timeout_ms outside 1 s .. 15 min (a tool error naming the field, no approval)", async () => {
    const before = (await pendingMcpApprovals(gw)).length
    for (const timeout_ms of [999, 900_001]) {
      const result = await call(gw, gw.adminToken, "request_approval", { prompt: "too short", timeout_ms })
      expect(result.isError).toBe(true)
      expect(JSON.stringify(result.content)).toContain("Expected an integer from 1000 to 900000")
    }
    expect((await pendingMcpApprovals(gw)).length).toBe(before)
  })

  it("memory_write then memory_search finds the item", async () => {
    const written = await call(gw, gw.adminToken, "memory_write", {
      item: { kind: "note", agent_id: "ext-agent", title: "Release train", body_md: "The release train leaves on Thursdays." }
    })
    expect(written.isError).toBeFalsy()
    const item = (written.structuredContent as any).item
    expect(item).toMatchObject({ kind: "note", agent_id: "ext-agent", title: "Release train" })
    const found = await call(gw, gw.adminToken, "memory_search", { query: "release train", agent_id: "ext-agent", limit: 5 })
    expect(found.isError).toBeFalsy()
    expect((found.structuredContent as any).hits.map((h: any) => h.memory_item_id)).toEqual([item.memory_item_id])
  })

  it("audit_append joins its plan's chain (valid); gateway chains and unknown plans are tool errors", async () => {
    const trigger = { channel: "telegram", thread_id: "t-mcp", message: { text: "Order the usual flowers" } }
    const plan = await readJson(await postJson(gw, "/plan", { request_id: "mcp-audit", trigger, tags: ["spend:100:EUR", "pii:none", "legal:none"] }, gw.adminToken))
    const planId = plan.plan_id as string
    const result = await call(gw, gw.adminToken, "audit_append", { plan_id: planId, action: { type: "file.write", path: "/tmp/report.md" } })
    expect(result.isError).toBeFalsy()
    expect(result.structuredContent).toEqual({ plan_id: planId, type: "file.write", appended: true })
    const bundle = await readJson(await gw.fetch(`/audit/export/${planId}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    const appended = (bundle.events as Array<any>).find((e) => e.action?.type === "file.write")
    expect(appended.action).toMatchObject({ type: "file.write", path: "/tmp/report.md", source: "mcp", actor: { kind: "admin" } })
    expect(bundle.chain_verification.valid).toBe(true)

    expect(toolError(await call(gw, gw.adminToken, "audit_append", { plan_id: "gateway.auth", action: { type: "x" } })).error)
      .toBe("invalid_request")
    expect(toolError(await call(gw, gw.adminToken, "audit_append", { plan_id: "no-such-plan", action: { type: "x" } })).error)
      .toBe("not_found")
  })

  it("list_approvals, list_runs and list_nodes answer what their HTTP routes answer, with the routes' scopes", async () => {
    const auth = { headers: { authorization: `Bearer ${gw.adminToken}` } }
    const approvals = await call(gw, gw.adminToken, "list_approvals", {})
    expect(approvals.isError).toBeFalsy()
    expect(approvals.structuredContent).toEqual(await readJson(await gw.fetch("/approvals?status=pending", auth)))
    const expired = await call(gw, gw.adminToken, "list_approvals", { status: "expired" })
    expect(expired.structuredContent).toEqual(await readJson(await gw.fetch("/approvals?status=expired", auth)))
    const nodes = await call(gw, gw.adminToken, "list_nodes", {})
    expect(nodes.structuredContent).toEqual(await readJson(await gw.fetch("/nodes", auth)))
    // This gateway runs without SVC_ENGINE_API_ENABLED: GET /workflow/runs is 404, list_runs not_found.
    expect(toolError(await call(gw, gw.adminToken, "list_runs", {}))).toEqual({
      error: "not_found",
      message: "the workflow engine API is disabled (SVC_ENGINE_API_ENABLED=1 enables it)"
    })
    const reader = await deviceToken(gw, ["operator.read"])
    expect((await call(gw, reader, "list_nodes", {})).isError).toBeFalsy()
    expect(toolError(await call(gw, reader, "list_approvals", {}))).toEqual({
      error: "forbidden",
      message: "insufficient scope: list_approvals requires operator.approvals"
    })
  })

  it("list_runs answers GET /workflow/runs's page when the engine API is on", async () => {
    const engine = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true })
    try {
      const result = await call(engine, engine.adminToken, "list_runs", { limit: 5 })
      expect(result.isError).toBeFalsy()
      const http = await readJson(await engine.fetch("/workflow/runs?limit=5", { headers: { authorization: `Bearer ${engine.adminToken}` } }))
      expect(result.structuredContent).toEqual(http)
      expect(toolError(await call(engine, engine.adminToken, "list_runs", { cursor: "not-a-cursor" })).error).toBe("invalid_request")
    } finally {
      await engine.close()
    }
  })

  it("a tool the token's scopes do not allow answers the tool error forbidden", async () => {
    const reader = await deviceToken(gw, ["operator.read"])
    const refused = toolError(await call(gw, reader, "memory_write", { item: { kind: "note", body_md: "nope" } }))
    expect(refused).toEqual({ error: "forbidden", message: "insufficient scope: memory_write requires operator.write" })
    expect(toolError(await call(gw, reader, "policy_check", {})).error).toBe("forbidden")
    expect(toolError(await call(gw, reader, "request_approval", { prompt: "p", timeout_ms: 1_000 })).error).toBe("forbidden")
    // What it may do, it does.
    expect((await call(gw, reader, "memory_search", { query: "anything" })).isError).toBeFalsy()
    // Each refusal is audited like an HTTP or WS one.
    const auth = await readJson(await gw.fetch("/audit/export/gateway.auth", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    const denied = (auth.events as Array<any>).filter((e) => e.action?.type === "authz.denied" && e.action.transport === "mcp")
    expect(denied.map((e) => e.action.route)).toEqual(expect.arrayContaining(["memory_write", "policy_check", "request_approval"]))
    expect(denied.find((e) => e.action.route === "memory_write").action).toMatchObject({
      required_scope: "operator.write",
      principal: "device",
      device_id: "mcp-operator.read"
    })
  })
})

describe("MCP request_approval on the test clock", () => {
  let clocked: TestGateway
  beforeAll(async () => {
    clocked = await startGateway({ rateLimitMax: 10_000 }, undefined, { clock: "test", clockStartMs: Date.UTC(2026, 10, 27) })
  })
  afterAll(() => clocked.close())

  it("answers expired once timeout_ms passed without a decision; the approval expired at that time", async () => {
    const prompt = "Wait for me"
    const answer = call(clocked, clocked.adminToken, "request_approval", { prompt, timeout_ms: 30_000 })
    const approval = await waitForApproval(clocked, prompt)
    expect(Date.parse(approval.expires_at) - Date.parse(approval.created_at)).toBe(30_000)
    await clocked.run(TestClock.adjust("30 seconds"))
    const result = await answer
    expect(result.structuredContent).toEqual({ approval_id: approval.id, decision: "expired" })
    const stored = await readJson(await clocked.fetch(`/approvals/${approval.id}`, { headers: { authorization: `Bearer ${clocked.adminToken}` } }))
    expect(stored.approval?.status ?? stored.status).toBe("expired")
  })
})

