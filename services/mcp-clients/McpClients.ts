/**
 * MCP servers as tool sources of the agent (issue 26 §2; docs/mcp.md): the servers of `$SVC_HOME/mcp.yml` and those
 * plugins attach, each connected with `effect/ai`'s `McpClient` (connection.ts) and supervised by a fiber of its own:
 *
 * 1. `starting`: connect, list the tools, offer them to the agent (`AgentContributions.setTools("mcp:<name>", …)`,
 *    tools.ts) → `ready`.
 * 2. While ready, the tool list is read again every {@link REFRESH_INTERVAL} (a changed list is offered anew; a list
 *    that cannot be read means the server is gone, which is how a dead HTTP server is noticed).
 * 3. Gone (the process exited, a call or a refresh found the connection closed) or never started: the tools are
 *    withdrawn, the health says `failed` with `last_error` and `retry_at`, and the next attempt waits the
 *    {@link BACKOFF} delay: 1 s, 2 s, 4 s, … at most 5 min, from 1 s again once the server was ready.
 *
 * Servers start only with the agent runtime enabled (`SVC_AGENT_ENABLED=1`); otherwise they are recorded, not run.
 *
 * @module
 */
import { NodeServices } from "@effect/platform-node"
import { Cause, Clock, Context, Deferred, Duration, Effect, Exit, Fiber, Layer, Schedule } from "effect"
import { FetchHttpClient, HttpClient } from "effect/http"
import { ChildProcessSpawner } from "effect/process"
import { GatewayConfig } from "../../layers/config.ts"
import { AgentContributions, type ContributedTool } from "../agent/contributions.ts"
import { InvalidRequest } from "../shared/errors.ts"
import { isoTime } from "../shared/time.ts"
import { isStdio, loadMcpConfig, type McpConfigError, type McpServerSpec, SERVER_NAME_PATTERN } from "./config.ts"
import { connect } from "./connection.ts"
import type { McpServerInfo, McpServersResponse } from "./schema.ts"
import { serverTools } from "./tools.ts"

/** The owner of the servers of `mcp.yml`. */
export const CONFIG_OWNER = "mcp.yml"

/** Delay before the n-th attempt after a failure: 1 s doubling, at most 5 min. */
export const BACKOFF = Schedule.exponential(Duration.seconds(1), 2).pipe(
  Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, Duration.minutes(5))))
)

/** How often a ready server's tool list is read again (1 min). */
export const REFRESH_INTERVAL = Duration.minutes(1)

/** The agent's source name of server `name`: `mcp:<name>`. */
export const sourceOf = (name: string): string => `mcp:${name}`

/** One attached server and what its supervisor last saw. */
interface Entry {
  readonly name: string
  readonly owner: string
  readonly spec: McpServerSpec
  fiber: Fiber.Fiber<never, never> | undefined
  status: McpServerInfo["status"]
  tools: ReadonlyArray<ContributedTool>
  skipped: ReadonlyArray<string>
  failures: number
  last_error?: string
  retry_at?: string
  ready_at?: string
}

/** What is shown of a spec: the program, or the URL without its query and fragment (a token may sit there). */
const targetOf = (spec: McpServerSpec): string => {
  if (isStdio(spec)) return spec.command
  const url = new URL(spec.url)
  return `${url.origin}${url.pathname}`
}

/**
 * A failure as one line for `last_error`: its message and those of its causes (an MCP client error wraps a transport
 * error wrapping, say, the refused connection). Never a header or an environment value: neither is in a client error.
 */
const describe = (cause: Cause.Cause<unknown>): string => {
  const messages: Array<string> = []
  let error: unknown = Cause.squash(cause)
  for (let depth = 0; depth < 4 && error !== undefined && error !== null; depth++) {
    const message = error instanceof Error ? error.message : String(error)
    if (message !== "" && !messages.includes(message)) messages.push(message)
    error = error instanceof Error ? (error as { readonly cause?: unknown }).cause : undefined
  }
  return messages.join(": ").split("\n")[0]!.slice(0, 500)
}

/** `message` without an HTTP server's full URL (an HTTP client error may quote it, query and all): its target instead. */
const redact = (spec: McpServerSpec, message: string): string =>
  isStdio(spec) ? message : [spec.url, new URL(spec.url).href].reduce((text, url) => text.split(url).join(targetOf(spec)), message)

/** The MCP servers the agent uses as tool sources. */
export class McpClients extends Context.Service<McpClients, {
  /**
   * Attaches server `name` for `owner` (`mcp.yml`, `plugin:<id>`) and starts it (agent runtime enabled). The same
   * owner attaching again replaces the spec (the server restarts). `InvalidRequest`: a name that is not
   * `[A-Za-z0-9][A-Za-z0-9_-]{0,31}`, or one another owner holds.
   */
  readonly attach: (name: string, spec: McpServerSpec, owner: string) => Effect.Effect<void, InvalidRequest>
  /** Stops server `name` and withdraws its tools and health; an unknown name is nothing to do. */
  readonly detach: (name: string) => Effect.Effect<void>
  /** Every attached server (by name) with its tools and health, and the problems of `mcp.yml`. */
  readonly servers: () => Effect.Effect<McpServersResponse>
}>()("svc-gateway/mcp-clients/McpClients") {
  /**
   * Reads `mcp.yml` (its problems logged once) and attaches its servers. Needs `GatewayConfig`, `AgentContributions`,
   * `FileSystem`, `ChildProcessSpawner` and `HttpClient`.
   */
  static readonly layerNoDeps = Layer.effect(
    McpClients,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      const contributions = yield* AgentContributions
      const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
      const httpClient = yield* HttpClient.HttpClient
      const layerScope = yield* Effect.scope
      const entries = new Map<string, Entry>()

      const report = (entry: Entry) =>
        contributions.reportHealth({
          source: sourceOf(entry.name),
          status: entry.status,
          tools: entry.status === "ready" ? entry.tools.length : 0,
          ...(entry.last_error !== undefined ? { last_error: entry.last_error } : {}),
          ...(entry.retry_at !== undefined ? { retry_at: entry.retry_at } : {}),
          ...(entry.ready_at !== undefined ? { ready_at: entry.ready_at } : {})
        })

      const offer = (entry: Entry, tools: ReadonlyArray<ContributedTool>) =>
        Effect.suspend(() => {
          entry.tools = tools
          return contributions.setTools(sourceOf(entry.name), tools)
        })

      /** One connection's life: ready once its tools are offered; fails with why it ended (it always ends in failure). */
      const session = (entry: Entry) =>
        Effect.gen(function*() {
          const lost = yield* Deferred.make<string>()
          const onLost = (reason: string) => Effect.asVoid(Deferred.succeed(lost, reason))
          const connection = yield* connect(entry.spec).pipe(
            Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, spawner),
            Effect.provideService(HttpClient.HttpClient, httpClient)
          )
          const discover = Effect.map(connection.client.listTools(), (descriptors) => serverTools(entry.name, connection.client, descriptors, onLost))
          const first = yield* discover
          yield* offer(entry, first.tools)
          entry.skipped = first.skipped
          entry.status = "ready"
          entry.failures = 0
          entry.ready_at = isoTime(yield* Clock.currentTimeMillis)
          delete entry.last_error
          delete entry.retry_at
          yield* report(entry)
          yield* Effect.logInfo("mcp server ready").pipe(Effect.annotateLogs({ server: entry.name, tools: first.tools.length }))
          const refresh = Effect.sleep(REFRESH_INTERVAL).pipe(
            Effect.andThen(Effect.result(discover)),
            Effect.flatMap((result) => {
              // A ready server whose tool list cannot be read any more is treated as gone, whatever the failure.
              if (result._tag === "Failure") return onLost(`tools/list failed: ${result.failure.message}`)
              const names = (tools: ReadonlyArray<ContributedTool>) => tools.map((t) => `${t.tool.name}:${t.tool.description ?? ""}`).join("\n")
              if (names(result.success.tools) === names(entry.tools)) return Effect.void
              entry.skipped = result.success.skipped
              return Effect.andThen(offer(entry, result.success.tools), report(entry))
            }),
            Effect.forever
          )
          yield* Effect.forkScoped(refresh)
          const reason = yield* Effect.raceFirst(connection.exited, Deferred.await(lost))
          return yield* Effect.fail(new Error(reason))
        })

      /** Runs `entry`'s sessions forever, waiting the backoff between them. */
      const supervise = (entry: Entry) =>
        Effect.gen(function*() {
          let step = yield* Schedule.toStep(BACKOFF)
          while (true) {
            entry.status = "starting"
            yield* report(entry)
            const exit = yield* Effect.exit(Effect.scoped(session(entry)))
            // The session moved it to ready (TypeScript still sees the assignment above).
            const wasReady = (entry.status as McpServerInfo["status"]) === "ready"
            yield* offer(entry, [])
            if (wasReady) step = yield* Schedule.toStep(BACKOFF)
            const now = yield* Clock.currentTimeMillis
            const [, delay] = yield* Effect.orDie(step(now, undefined))
            entry.status = "failed"
            entry.failures++
            entry.last_error = redact(entry.spec, Exit.isFailure(exit) ? describe(exit.cause) : "the connection ended")
            entry.retry_at = isoTime(now + Duration.toMillis(delay))
            yield* report(entry)
            yield* Effect.logWarning("mcp server failed; retrying").pipe(
              Effect.annotateLogs({ server: entry.name, error: entry.last_error, retry_at: entry.retry_at })
            )
            yield* Effect.sleep(delay)
          }
        })

      const stop = (entry: Entry) =>
        Effect.gen(function*() {
          if (entry.fiber !== undefined) yield* Fiber.interrupt(entry.fiber)
          entry.fiber = undefined
          yield* contributions.remove(sourceOf(entry.name))
        })

      const attach = Effect.fn("McpClients.attach")(function*(name: string, spec: McpServerSpec, owner: string) {
        if (!SERVER_NAME_PATTERN.test(name)) {
          return yield* new InvalidRequest({ message: `MCP server name "${name}": 1 to 32 letters, digits, _ or -, starting with a letter or digit` })
        }
        const existing = entries.get(name)
        if (existing !== undefined && existing.owner !== owner) {
          return yield* new InvalidRequest({ message: `MCP server name "${name}" is already attached by ${existing.owner}` })
        }
        if (existing !== undefined) yield* stop(existing)
        const entry: Entry = { name, owner, spec, fiber: undefined, status: "starting", tools: [], skipped: [], failures: 0 }
        entries.set(name, entry)
        if (settings.agentEnabled) entry.fiber = yield* Effect.forkIn(supervise(entry), layerScope)
      })

      const detach = Effect.fn("McpClients.detach")(function*(name: string) {
        const entry = entries.get(name)
        if (entry === undefined) return
        entries.delete(name)
        yield* stop(entry)
      })

      const config = settings.agentEnabled ? yield* loadMcpConfig(settings.home) : { servers: [], errors: [] }
      const errors: ReadonlyArray<McpConfigError> = config.errors
      for (const error of errors) {
        yield* Effect.logWarning("invalid mcp.yml entry; skipped").pipe(
          Effect.annotateLogs({ file: error.file, ...(error.line !== undefined ? { line: error.line } : {}), problem: error.message })
        )
      }
      for (const server of config.servers) {
        // The file's names are checked and unique already: nothing here can be refused, but never fail the start.
        yield* attach(server.name, server.spec, CONFIG_OWNER).pipe(
          Effect.catch((error) => Effect.logWarning("mcp.yml server not attached").pipe(Effect.annotateLogs({ server: server.name, problem: error.message })))
        )
      }

      const servers = Effect.fn("McpClients.servers")(function*() {
        const list = [...entries.values()].sort((a, b) => a.name.localeCompare(b.name)).map((entry): McpServerInfo => ({
          name: entry.name,
          owner: entry.owner,
          transport: isStdio(entry.spec) ? "stdio" : "http",
          target: targetOf(entry.spec),
          status: entry.status,
          tools: entry.status === "ready"
            ? entry.tools.map((t) => ({
              name: t.tool.name,
              tool_id: t.toolId,
              ...(t.tool.description !== undefined ? { description: t.tool.description } : {})
            }))
            : [],
          ...(entry.skipped.length > 0 ? { skipped_tools: entry.skipped } : {}),
          failures: entry.failures,
          ...(entry.last_error !== undefined ? { last_error: entry.last_error } : {}),
          ...(entry.retry_at !== undefined ? { retry_at: entry.retry_at } : {}),
          ...(entry.ready_at !== undefined ? { ready_at: entry.ready_at } : {})
        }))
        return { status: "ok" as const, servers: list, errors }
      })

      return McpClients.of({ attach, detach, servers })
    })
  )

  /** Wired: the agent's contributions registry, Node's file system and child processes, `fetch`. Needs `GatewayConfig`. */
  static readonly layer = McpClients.layerNoDeps.pipe(
    Layer.provide(AgentContributions.layer),
    Layer.provide(NodeServices.layer),
    Layer.provide(FetchHttpClient.layer)
  )
}
