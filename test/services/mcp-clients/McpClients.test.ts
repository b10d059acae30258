/**
 * MCP servers as tool sources (issue 26 §2; docs/mcp.md), against real server processes, time driven by `TestClock`:
 *
 * - a stdio server (test/fixtures/mcp/stdioServer.ts) becomes ready, its tools join the agent's contributions as
 *   `mcp_<server>_<tool>` / `mcp.<server>.<tool>`, and a call reaches it; a tool error is `tool_failed`;
 * - killed: `failed` with `last_error` and `retry_at` one second on, its tools withdrawn; one second later it is back;
 * - a server that never starts is retried after 1 s, 2 s, 4 s (the backoff), each attempt reported;
 * - an HTTP server (served in process) that stops is noticed at the next tool-list refresh;
 * - detach stops it and withdraws its health; a name held by another owner is refused;
 * - `mcp.yml` is read at start: its servers attached, its problems reported with their line.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { NodeHttpServer, NodeServices } from "@effect/platform-node"
import { Duration, Effect, Layer, ManagedRuntime } from "effect"
import { McpProtocol, McpServer } from "effect/ai"
import { FetchHttpClient, HttpRouter, HttpServer } from "effect/http"
import { TestClock } from "effect/testing"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayConfig } from "../../../layers/config.ts"
import { AgentContributions } from "../../../services/agent/contributions.ts"
import { McpClients, REFRESH_INTERVAL } from "../../../services/mcp-clients/McpClients.ts"
import { FixtureRegistrations } from "../../fixtures/mcp/tools.ts"
import { testSettings } from "../../support/gateway.ts"
import { bundleMcpFixture } from "../../support/mcpFixture.ts"

let fixture: string
let work: string
beforeAll(async () => {
  fixture = await bundleMcpFixture()
  work = mkdtempSync(join(tmpdir(), "svc-mcp-clients-"))
}, 60_000)
afterAll(() => {
  rmSync(work, { recursive: true, force: true })
  rmSync(fixture, { force: true })
})

/** Polls real time (10 ms steps, up to 10 s) until `check` holds (the server processes run on real time). */
const settle = (what: string, check: () => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    const contributions = yield* Effect.service(AgentContributions)
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(contributions.health())}`)
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
    }
  })

const layerFor = (home: string) =>
  McpClients.layerNoDeps.pipe(
    Layer.provideMerge(AgentContributions.layer),
    Layer.provide(NodeServices.layer),
    Layer.provide(FetchHttpClient.layer),
    Layer.provide(Layer.succeed(GatewayConfig, testSettings({ home, agentEnabled: true })))
  )

const withClients = <A, E>(home: string, body: Effect.Effect<A, E, McpClients | AgentContributions>) =>
  Effect.scoped(Layer.build(layerFor(home)).pipe(Effect.flatMap((context) => Effect.provideContext(body, context))))

const health = (source: string) =>
  Effect.map(Effect.service(AgentContributions), (c) => c.health().find((h) => h.source === source))

describe("McpClients", () => {
  it.effect("connects a stdio server, offers its tools, withdraws them when it dies and brings them back after the backoff", () =>
    withClients(mkdtempSync(join(work, "home-")), Effect.gen(function*() {
      const clients = yield* McpClients
      const contributions = yield* AgentContributions
      const pidFile = join(work, "fx.pid")
      const calls = join(work, "fx.calls")
      yield* clients.attach("fx", { command: process.execPath, args: [fixture], env: { MCP_FIXTURE_PID: pidFile, MCP_FIXTURE_CALLS: calls } }, "test")
      yield* settle("fx ready", () => contributions.health().some((h) => h.source === "mcp:fx" && h.status === "ready"))
      const tools = contributions.tools()
      expect(tools.map((t) => [t.tool.name, t.toolId])).toEqual([["mcp_fx_echo", "mcp.fx.echo"], ["mcp_fx_fail", "mcp.fx.fail"]])
      expect(tools[0]!.matchTarget({ text: "hi", a: 1 })).toBe('{"a":1,"text":"hi"}')
      const context = { agentId: "default", workspaceId: "default", sessionId: "s", sessionKey: "agent:default:operator:t" }
      const echoed = yield* tools[0]!.run({ text: "hello" }, context)
      expect(JSON.stringify(echoed)).toContain("echo: hello")
      expect(readFileSync(calls, "utf8")).toBe("hello\n")
      const failed = yield* Effect.flip(tools[1]!.run({}, context))
      expect(failed).toMatchObject({ error: "tool_failed" })
      expect(failed.message).toContain("always fails")

      process.kill(Number(readFileSync(pidFile, "utf8")), "SIGKILL")
      yield* settle("fx failed", () => contributions.health().some((h) => h.source === "mcp:fx" && h.status === "failed"))
      expect(contributions.tools()).toEqual([])
      const down = yield* health("mcp:fx")
      expect(down).toMatchObject({ status: "failed", tools: 0, retry_at: new Date(1_000).toISOString() })
      expect(down?.last_error).toBe("its process ended on SIGKILL")
      expect((yield* clients.servers()).servers[0]).toMatchObject({ name: "fx", owner: "test", transport: "stdio", status: "failed", failures: 1, tools: [] })

      yield* TestClock.adjust(Duration.seconds(1))
      yield* settle("fx back", () => contributions.health().some((h) => h.source === "mcp:fx" && h.status === "ready"))
      expect(contributions.tools().map((t) => t.tool.name)).toEqual(["mcp_fx_echo", "mcp_fx_fail"])
      const back = (yield* clients.servers()).servers[0]!
      expect(back).toMatchObject({ status: "ready", failures: 0, tools: [{ name: "mcp_fx_echo", tool_id: "mcp.fx.echo" }, { name: "mcp_fx_fail" }] })
      expect(back.last_error).toBeUndefined()

      expect(yield* Effect.flip(clients.attach("fx", { url: "http://127.0.0.1:1/mcp" }, "plugin:other"))).toMatchObject({
        _tag: "InvalidRequest",
        message: expect.stringContaining("already attached by test")
      })
      const pid = Number(readFileSync(pidFile, "utf8"))
      yield* clients.detach("fx")
      expect(contributions.health()).toEqual([])
      expect(contributions.tools()).toEqual([])
      yield* settle("fx process gone", () => {
        try {
          process.kill(pid, 0)
          return false
        } catch {
          return true
        }
      })
    })), 30_000)

  it.effect("retries a server that does not start after 1 s, 2 s, 4 s", () =>
    withClients(mkdtempSync(join(work, "home-")), Effect.gen(function*() {
      const clients = yield* McpClients
      const contributions = yield* AgentContributions
      yield* clients.attach("broken", { command: process.execPath, args: ["-e", "process.exit(3)"] }, "test")
      const poll = (failures: number) =>
        settle(`failure ${failures}`, () => {
          const server = Effect.runSync(clients.servers()).servers[0]
          return server?.status === "failed" && server.failures === failures
        })
      yield* poll(1)
      expect((yield* health("mcp:broken"))?.retry_at).toBe(new Date(1_000).toISOString())
      expect((yield* health("mcp:broken"))?.last_error).toBe("its process exited with code 3 before it was ready (MCP server closed stdout)")
      yield* TestClock.adjust(Duration.seconds(1))
      yield* poll(2)
      expect((yield* health("mcp:broken"))?.retry_at).toBe(new Date(3_000).toISOString())
      yield* TestClock.adjust(Duration.seconds(2))
      yield* poll(3)
      expect((yield* health("mcp:broken"))?.retry_at).toBe(new Date(7_000).toISOString())
      expect(contributions.tools()).toEqual([])
    })), 30_000)

  it.effect("notices a stopped HTTP server at the next tool-list refresh (1 min) and withdraws its tools", () =>
    withClients(mkdtempSync(join(work, "home-")), Effect.gen(function*() {
      const clients = yield* McpClients
      const contributions = yield* AgentContributions
      const web = ManagedRuntime.make(
        HttpRouter.serve(
          McpServer.layerHttp({ name: "web", version: "1.0.0", path: "/mcp", protocols: [McpProtocol.v2025_11_25], registrations: FixtureRegistrations }),
          { disableLogger: true, disableListenLog: true }
        ).pipe(Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })))
      )
      const address = (yield* Effect.promise(() => web.runPromise(Effect.service(HttpServer.HttpServer)))).address
      yield* clients.attach("web", { url: `${HttpServer.formatAddress(address)}/mcp` }, "test")
      yield* settle("web ready", () => contributions.health().some((h) => h.source === "mcp:web" && h.status === "ready"))
      expect(contributions.tools().map((t) => t.tool.name)).toEqual(["mcp_web_echo", "mcp_web_fail"])
      yield* Effect.promise(() => web.dispose())
      yield* TestClock.adjust(REFRESH_INTERVAL)
      yield* settle("web failed", () => contributions.health().some((h) => h.source === "mcp:web" && h.status === "failed"))
      expect(contributions.tools()).toEqual([])
      expect((yield* health("mcp:web"))?.last_error).toMatch(/^tools\/list failed: /)
    })), 30_000)

  it.effect("an HTTP server that cannot be reached fails without its URL's query or its headers in the health", () =>
    withClients(mkdtempSync(join(work, "home-")), Effect.gen(function*() {
      const clients = yield* McpClients
      yield* clients.attach("remote", { url: "http://127.0.0.1:9/mcp?token=sekrit", headers: { authorization: "Bearer sekrit" } }, "test")
      yield* settle("remote failed", () => Effect.runSync(clients.servers()).servers[0]?.status === "failed")
      const server = (yield* clients.servers()).servers[0]!
      expect(server).toMatchObject({ transport: "http", target: "http://127.0.0.1:9/mcp", status: "failed", retry_at: new Date(1_000).toISOString() })
      expect(JSON.stringify(server)).not.toContain("sekrit")
      expect(JSON.stringify((yield* AgentContributions).health())).not.toContain("sekrit")
    })), 30_000)

  it.effect("a command that cannot start fails without its arguments in the health", () =>
    withClients(mkdtempSync(join(work, "home-")), Effect.gen(function*() {
      const clients = yield* McpClients
      yield* clients.attach("missing", { command: "/nonexistent/mcp-server", args: ["--token", "sekrit"], env: { API_KEY: "sekrit" } }, "test")
      yield* settle("missing failed", () => Effect.runSync(clients.servers()).servers[0]?.status === "failed")
      const server = (yield* clients.servers()).servers[0]!
      expect(server.last_error).toMatch(/^Cannot spawn MCP server: .*ENOENT/)
      expect(JSON.stringify(server)).not.toContain("sekrit")
    })), 30_000)

  it.effect("reads mcp.yml at start: its servers attached (owner mcp.yml), its problems reported with their line", () => {
    const home = mkdtempSync(join(work, "home-"))
    writeFileSync(join(home, "mcp.yml"), [
      "servers:",
      "  fx:",
      `    command: ${JSON.stringify(process.execPath)}`,
      `    args: [${JSON.stringify(fixture)}]`,
      "  bad:",
      "    command: x",
      "    url: http://127.0.0.1:1/mcp",
      "  worse:",
      "    url: http://127.0.0.1:1/mcp",
      "    color: blue",
      ""
    ].join("\n"))
    return withClients(home, Effect.gen(function*() {
      const clients = yield* McpClients
      const contributions = yield* AgentContributions
      yield* settle("fx ready", () => contributions.health().some((h) => h.source === "mcp:fx" && h.status === "ready"))
      const listed = yield* clients.servers()
      expect(listed.servers.map((s) => [s.name, s.owner, s.target])).toEqual([["fx", "mcp.yml", process.execPath]])
      expect(listed.errors).toEqual([
        { file: join(home, "mcp.yml"), line: 5, message: "servers.bad: a server has either command (stdio) or url (HTTP), not both or neither" },
        { file: join(home, "mcp.yml"), line: 10, message: "servers.worse.color: unexpected field" }
      ])
      expect(existsSync(join(home, "mcp.yml"))).toBe(true)
    }))
  }, 30_000)
})
