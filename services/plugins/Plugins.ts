/**
 * The plugin host (issue 26 §1; docs/plugins.md): with `SVC_PLUGINS_ENABLED=1`
 * it loads the plugins of `$SVC_HOME/plugins` once, when the gateway starts
 * (discovery.ts: manifest, ownership, lock and integrity), starts each
 * plugin's worker (PluginWorker.ts), checks that its entry exports a handler
 * for every contribution, and joins its tools and commands to the agent
 * through `AgentContributions` (source `plugin:<id>`; the agent's policy gate
 * governs each tool as `plugin.<id>.<tool>`). What did not load is listed
 * under `errors` and logged once.
 *
 * A worker that exits or hangs is reported (`plugin.lifecycle` `failed`,
 * `restarting: true`) and started again; once it answers, the plugin is
 * `loaded` again. After {@link MAX_CONSECUTIVE_FAILURES} failures in a row
 * (exits and timeouts with no successful call in between) the host gives up: the worker is stopped, the plugin's contributions are
 * withdrawn and it stays listed with `worker.status: "failed"`.
 *
 * @module
 */
import { Cause, Clock, Context, Effect, Exit, Layer, Option, PubSub, Queue, Redacted, Schedule, type Scope } from "effect"
import { Tool } from "effect/ai"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { GatewayConfig } from "../../layers/config.ts"
import { AgentContributions, type ContributedCommand, type ContributedTool, type ToolFailure } from "../agent/contributions.ts"
import { SecretResolver } from "../secrets/SecretStore.ts"
import { NotFound } from "../shared/errors.ts"
import { isoTime } from "../shared/time.ts"
import { Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { PLUGINS_CHAIN } from "./chains.ts"
import { discover, type FoundPlugin, pluginsDirectory } from "./discovery.ts"
import { type PluginCallError, PluginFailed, PluginTimeout, PluginUnavailable } from "./errors.ts"
import { PluginLifecycle, PluginToolInvoked } from "./events.ts"
import type { ManifestMcpServer, ManifestTool } from "./manifest.ts"
import type { PluginCallFailure, PluginClient, PluginWorker } from "./PluginWorker.ts"
import { pluginRecord, pluginToolNames } from "./records.ts"
import type { PluginLoadError, PluginRecord } from "./schema.ts"
import type { PluginCallError as WorkerCallError } from "./worker/protocol.ts"
import type { RpcClientError } from "effect/rpc/RpcClientError"

/** Failures in a row (exits, timeouts, a failed restart) after which a plugin's worker is given up. */
export const MAX_CONSECUTIVE_FAILURES = 3

/** An MCP server a plugin's manifest declares (for the MCP tool sources to connect; not connected here). */
export interface PluginMcpServer {
  readonly plugin_id: string
  /** The plugin's directory (a stdio server runs there). */
  readonly source_dir: string
  readonly server: ManifestMcpServer
}

/** A route of a plugin's RPC router, as the HTTP edge authorizes it. */
export interface PluginRoute {
  readonly plugin_id: string
  readonly name: string
  readonly scope: "operator.read" | "operator.write" | "operator.approvals" | "operator.admin"
}

/** The loaded plugins, their load errors, and calls into their routers. */
export class Plugins extends Context.Service<Plugins, {
  /** Every loaded plugin (by id) and every directory that did not load. */
  readonly list: () => Effect.Effect<{ readonly plugins: ReadonlyArray<PluginRecord>; readonly errors: ReadonlyArray<PluginLoadError> }>
  /** One loaded plugin, or `NotFound`. */
  readonly get: (id: string) => Effect.Effect<PluginRecord, NotFound>
  /** A route the plugin's manifest declares (`contributes.routes`), or `NotFound`. */
  readonly route: (id: string, name: string) => Effect.Effect<PluginRoute, NotFound>
  /** Calls the plugin's RPC handler `name` with `input` (JSON), within the call deadline. */
  readonly callRoute: (id: string, name: string, input: unknown) => Effect.Effect<unknown, NotFound | PluginCallError>
  /** The MCP servers the loaded plugins declare (`contributes.mcp_servers`), by plugin then name. A plain value. */
  readonly mcpServers: () => ReadonlyArray<PluginMcpServer>
  /** The ids of the plugins given up from now on (for the current scope): what they contributed elsewhere goes too. */
  readonly givenUp: Effect.Effect<PubSub.Subscription<string>, never, Scope.Scope>
}>()("svc-gateway/plugins/Plugins") {
  /** Needs `GatewayConfig`, `AgentContributions`, `EventBus`, `DomainEvents` and `SecretResolver`. */
  static readonly layerNoDeps = Layer.effect(Plugins, Effect.suspend(() => makePlugins))

  /**
   * With the agent's contribution registry and the event bus (each one instance per graph); needs `SecretResolver`
   * (the descriptor provides the secrets subsystem's layer).
   */
  static readonly layer = Plugins.layerNoDeps.pipe(Layer.provide(AgentContributions.layer), Layer.provide(EventBus.layer))
}

/** A plugin that passed discovery, and its worker's state. */
interface Loaded {
  readonly found: FoundPlugin
  readonly loadedAt: string
  worker: PluginWorker | undefined
  status: "running" | "restarting" | "failed" | "none"
  restarts: number
  consecutive: number
  lastError: string | undefined
  /** Counts the worker's exits: a restart's probe acts only while no later exit happened. */
  generation: number
}

const notFound = (id: string) => new NotFound({ message: `plugin ${id} not found` })

const asCallError = (failure: PluginCallFailure): PluginCallError =>
  failure._tag === "HandlerFailed"
    ? new PluginFailed({ message: failure.message })
    : failure._tag === "Timeout"
    ? new PluginTimeout({ message: failure.message })
    : new PluginUnavailable({ message: failure.message })

const toolFailure = (error: PluginCallError): ToolFailure => ({
  error: error._tag === "PluginFailed" ? "tool_failed" : error._tag === "PluginTimeout" ? "plugin_timeout" : "plugin_unavailable",
  message: error.message
})

/** What a tool's call is matched against in the policy's patterns: its arguments as compact JSON (200 characters). */
const matchTarget = (args: Record<string, unknown>): string => JSON.stringify(args).slice(0, 200)

const makePlugins = Effect.gen(function*() {
  const settings = yield* GatewayConfig
  const disabled = Plugins.of({
    list: Effect.fn("Plugins.list")(function*() {
      return { plugins: [], errors: [] }
    }),
    get: Effect.fn("Plugins.get")(function*(id: string) {
      return yield* Effect.fail(notFound(id))
    }),
    route: Effect.fn("Plugins.route")(function*(id: string) {
      return yield* Effect.fail(notFound(id))
    }),
    callRoute: Effect.fn("Plugins.callRoute")(function*(id: string) {
      return yield* Effect.fail(notFound(id))
    }),
    mcpServers: () => [],
    givenUp: Effect.flatMap(PubSub.unbounded<string>(), PubSub.subscribe)
  })
  if (!settings.pluginsEnabled) return disabled

  const contributions = yield* AgentContributions
  const events = yield* EventBus
  const domainEvents = yield* DomainEvents
  const secrets = yield* SecretResolver
  const scope = yield* Effect.scope
  const now = Effect.map(Clock.currentTimeMillis, isoTime)
  const loaded = new Map<string, Loaded>()
  const errors: Array<PluginLoadError> = []
  const exits = yield* Queue.unbounded<{ readonly id: string; readonly code: number }>()
  const givenUp = yield* PubSub.unbounded<string>()
  // A plugin's console output, logged as `plugin output` lines; a chatty plugin loses lines, never the gateway memory.
  const output = yield* Queue.dropping<{ readonly id: string; readonly stream: string; readonly line: string }>(1000)
  yield* Queue.take(output).pipe(
    Effect.flatMap(({ id, line, stream }) => Effect.logInfo("plugin output").pipe(Effect.annotateLogs({ plugin_id: id, stream, line }))),
    Effect.forever,
    Effect.forkIn(scope)
  )
  // Loaded only when plugins are on: worker threads and the worker protocol stay out of a gateway without plugins
  // (and out of Deno, where plugins are not supported).
  const { runnerUrl, startWorker, STARTUP_TIMEOUT_MS } = yield* Effect.promise(() => import("./PluginWorker.ts"))
  const runner = yield* runnerUrl

  /** Announces a lifecycle change (`plugin.lifecycle`) and records it on `gateway.plugins`. */
  const lifecycle = (id: string, state: "loaded" | "failed" | "unloaded", extra: { reason?: string; restarting?: boolean } = {}) => {
    const plugin = loaded.get(id)
    const payload = { plugin_id: id, state, ...(plugin ? { version: plugin.found.manifest.version } : {}), ...extra }
    return Effect.andThen(
      events.publish(PluginLifecycle, payload),
      domainEvents.publishOrLog(Decision, {
        chain: PLUGINS_CHAIN,
        action: { type: "plugin.lifecycle", ...payload, ...(plugin ? { integrity_sha256: plugin.found.integrity } : {}) }
      })
    )
  }

  const invoke = <A>(plugin: Loaded, f: (client: PluginClient) => Effect.Effect<A, WorkerCallError | RpcClientError>) =>
    plugin.worker === undefined || plugin.status === "failed" || plugin.status === "restarting"
      ? Effect.fail<PluginCallError>(
        new PluginUnavailable({
          message: plugin.status === "restarting"
            ? `plugin ${plugin.found.manifest.id} is restarting (${plugin.lastError ?? "its worker failed"})`
            : `plugin ${plugin.found.manifest.id} is not running (${plugin.lastError ?? "no worker"})`
        })
      )
      : plugin.worker.call(f).pipe(
        Effect.mapError(asCallError),
        // A call that succeeds ends a run of failures (a restart's probe does not: a worker that keeps dying is given up).
        Effect.tap(() => Effect.sync(() => void (plugin.consecutive = 0)))
      )

  const resolveSecrets = (plugin: Loaded, tool: ManifestTool) =>
    Effect.forEach(tool.secrets ?? [], (handle) =>
      secrets.resolve(handle, `plugin:${plugin.found.manifest.id}:${tool.name}`).pipe(
        Effect.map((value) => [handle, Redacted.value(value)] as const),
        Effect.mapError((): ToolFailure => ({ error: "secret_unavailable", message: `secret ${handle} is not available to plugin tools` }))
      )).pipe(Effect.map((pairs) => Object.fromEntries(pairs)))

  const contributedTool = (plugin: Loaded, tool: ManifestTool): ContributedTool => {
    const id = plugin.found.manifest.id
    const { toolId, toolName } = pluginToolNames(id, tool.name)
    return {
      tool: Tool.dynamic(toolName, { description: tool.description, parameters: tool.parameters ?? { type: "object", properties: {} } }),
      toolId,
      matchTarget,
      run: (args, context) =>
        Effect.gen(function*() {
          const started = yield* Clock.currentTimeMillis
          const exit = yield* Effect.exit(
            Effect.flatMap(resolveSecrets(plugin, tool), (granted) =>
              invoke(plugin, (client) =>
                client.CallTool({ name: tool.name, args, secrets: granted, agent_id: context.agentId, session_id: context.sessionId })).pipe(
                  Effect.mapError(toolFailure)
                ))
          )
          const failure = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
          const invoked = {
            plugin_id: id,
            tool: toolName,
            tool_id: toolId,
            agent_id: context.agentId,
            session_id: context.sessionId,
            outcome: Exit.isSuccess(exit) ? "ok" as const : "error" as const,
            duration_ms: (yield* Clock.currentTimeMillis) - started,
            ...(failure === undefined ? {} : { error: failure.error })
          }
          yield* events.publish(PluginToolInvoked, invoked)
          yield* domainEvents.publishOrLog(Decision, { chain: PLUGINS_CHAIN, action: { type: "plugin_tool.invoked", ...invoked } })
          return yield* exit
        })
    }
  }

  const contributedCommand = (plugin: Loaded, name: string, help: string): ContributedCommand => ({
    name,
    help,
    run: (args, context) =>
      invoke(plugin, (client) => client.RunCommand({ name, args, agent_id: context.agentId })).pipe(Effect.mapError(toolFailure))
  })

  const health = (plugin: Loaded, status: "ready" | "starting" | "failed") =>
    Effect.flatMap(now, (at) =>
      contributions.reportHealth({
        source: `plugin:${plugin.found.manifest.id}`,
        status,
        tools: status === "ready" ? plugin.found.manifest.contributes?.tools?.length ?? 0 : 0,
        ...(plugin.lastError !== undefined && status !== "ready" ? { last_error: plugin.lastError } : {}),
        ...(status === "ready" ? { ready_at: at } : {})
      }))

  const register = (plugin: Loaded) => {
    const source = `plugin:${plugin.found.manifest.id}`
    const contributes = plugin.found.manifest.contributes ?? {}
    return Effect.all([
      contributions.setTools(source, (contributes.tools ?? []).map((tool) => contributedTool(plugin, tool))),
      contributions.setCommands(source, (contributes.commands ?? []).map((c) => contributedCommand(plugin, c.name, c.help))),
      health(plugin, "ready")
    ], { discard: true })
  }

  /** Gives up on a plugin: stops its worker, withdraws its contributions, reports it failed. */
  const giveUp = Effect.fnUntraced(function*(plugin: Loaded, reason: string) {
    const id = plugin.found.manifest.id
    plugin.status = "failed"
    plugin.lastError = reason
    if (plugin.worker !== undefined) yield* plugin.worker.close
    yield* contributions.remove(`plugin:${id}`)
    yield* health(plugin, "failed")
    yield* Effect.logError("plugin failed").pipe(Effect.annotateLogs({ plugin_id: id, reason }))
    yield* lifecycle(id, "failed", { reason, restarting: false })
    yield* PubSub.publish(givenUp, id)
  })

  /** Asks a (re)started worker what it exports, and checks it against the manifest; `undefined` when all is there. */
  const probe = Effect.fnUntraced(function*(plugin: Loaded) {
    if (plugin.worker === undefined) return "no worker"
    const deadline = Math.max(settings.pluginCallTimeoutMs, STARTUP_TIMEOUT_MS)
    const worker = plugin.worker
    // Unavailable: the request met the dying thread (the protocol fails what was in flight); the next one waits
    // for the new thread.
    const exported = yield* Effect.result(
      worker.call((client) => client.Describe(), deadline).pipe(
        Effect.retry({ times: 3, schedule: Schedule.spaced("500 millis"), while: (failure) => failure._tag === "Unavailable" }),
        Effect.mapError(asCallError)
      )
    )
    if (exported._tag === "Failure") return `the entry did not load: ${exported.failure.message}`
    const contributes = plugin.found.manifest.contributes ?? {}
    const missing = [
      ...(contributes.tools ?? []).filter((t) => !exported.success.tools.includes(t.name)).map((t) => `tool ${t.name}`),
      ...(contributes.commands ?? []).filter((c) => !exported.success.commands.includes(c.name)).map((c) => `command ${c.name}`),
      ...(contributes.routes ?? []).filter((r) => !exported.success.rpc.includes(r.name)).map((r) => `rpc ${r.name}`)
    ]
    return missing.length === 0 ? undefined : `the entry exports no handler for ${missing.join(", ")}`
  })

  /** A worker exited: restart and probe it, or give up after too many failures in a row. */
  const onExit = Effect.fnUntraced(function*(id: string, code: number) {
    const plugin = loaded.get(id)
    if (plugin === undefined || plugin.status === "failed") return
    plugin.restarts++
    plugin.consecutive++
    const generation = ++plugin.generation
    const reason = `the worker exited with code ${code}`
    plugin.lastError = reason
    yield* Effect.logWarning("plugin worker exited").pipe(Effect.annotateLogs({ plugin_id: id, code, consecutive_failures: plugin.consecutive }))
    if (plugin.consecutive >= MAX_CONSECUTIVE_FAILURES) {
      return yield* giveUp(plugin, `${reason}; ${plugin.consecutive} failures in a row, not restarted again`)
    }
    plugin.status = "restarting"
    yield* health(plugin, "starting")
    yield* lifecycle(id, "failed", { reason, restarting: true })
    yield* Effect.forkIn(
      Effect.gen(function*() {
        // A worker that dies while it loads (even one that exits at once) is this plugin's load error, never the gateway's.
      const problem = yield* probe(plugin).pipe(
        Effect.catchCause((cause) => Effect.succeed(`the entry did not load: its worker stopped (${Cause.pretty(cause).split("\n")[0]})`))
      )
        if (plugin.status !== "restarting" || plugin.generation !== generation) return
        if (problem !== undefined) return yield* giveUp(plugin, problem)
        plugin.status = "running"
        yield* health(plugin, "ready")
        yield* lifecycle(id, "loaded")
      }),
      scope
    )
  })
  yield* Queue.take(exits).pipe(Effect.flatMap(({ code, id }) => onExit(id, code)), Effect.forever, Effect.forkIn(scope))

  /** Starts one plugin that passed discovery. */
  const load = Effect.fnUntraced(function*(found: FoundPlugin) {
    const id = found.manifest.id
    const plugin: Loaded = {
      found,
      loadedAt: yield* now,
      worker: undefined,
      status: "none",
      restarts: 0,
      consecutive: 0,
      lastError: undefined,
      generation: 0
    }
    if (found.manifest.entry !== undefined) {
      if (Option.isNone(runner)) {
        return { error: "load_failed", message: "the plugin worker program is not built (run `npm run build`)", source_dir: found.dir, plugin_id: id }
      }
      plugin.worker = yield* startWorker({
        pluginId: id,
        entryUrl: pathToFileURL(join(found.dir, found.manifest.entry)).href,
        runner: runner.value,
        timeoutMs: settings.pluginCallTimeoutMs,
        onExit: (code) => Queue.offerUnsafe(exits, { id, code }),
        onOutput: (stream, line) => Queue.offerUnsafe(output, { id, stream, line })
      })
      plugin.status = "running"
      loaded.set(id, plugin)
      // A worker that dies while it loads (even one that exits at once) is this plugin's load error, never the gateway's.
      const problem = yield* probe(plugin).pipe(
        Effect.catchCause((cause) => Effect.succeed(`the entry did not load: its worker stopped (${Cause.pretty(cause).split("\n")[0]})`))
      )
      if (problem !== undefined) {
        plugin.status = "failed"
        loaded.delete(id)
        yield* plugin.worker.close
        return { error: "load_failed", message: problem, source_dir: found.dir, plugin_id: id }
      }
    }
    loaded.set(id, plugin)
    yield* register(plugin)
    yield* Effect.logInfo("plugin loaded").pipe(Effect.annotateLogs({ plugin_id: id, version: found.manifest.version, integrity: found.lock ? "verified" : "unlocked" }))
    yield* lifecycle(id, "loaded")
    return undefined
  })

  const root = pluginsDirectory(settings.home)
  const discovery = yield* discover(root, settings.pluginsAllowUnlocked)
  errors.push(...discovery.errors)
  // Started side by side: a slow plugin does not hold up the others.
  for (const error of yield* Effect.forEach(discovery.found, load, { concurrency: "unbounded" })) {
    if (error !== undefined) errors.push(error)
  }
  for (const error of errors) {
    yield* Effect.logWarning("plugin not loaded").pipe(Effect.annotateLogs({ ...error }))
    if (error.plugin_id !== undefined) yield* lifecycle(error.plugin_id, "failed", { reason: error.message, restarting: false })
  }

  yield* Effect.addFinalizer(() =>
    Effect.forEach([...loaded.values()], (plugin) =>
      Effect.gen(function*() {
        const id = plugin.found.manifest.id
        if (plugin.worker !== undefined && plugin.status !== "failed") yield* plugin.worker.close
        yield* contributions.remove(`plugin:${id}`)
        yield* lifecycle(id, "unloaded")
      }), { discard: true })
  )

  const recordOf = (plugin: Loaded): PluginRecord =>
    pluginRecord(plugin.found, plugin.loadedAt, { status: plugin.status, restarts: plugin.restarts, lastError: plugin.lastError })

  const lookup = (id: string) => Effect.fromNullishOr(loaded.get(id)).pipe(Effect.mapError(() => notFound(id)))

  return Plugins.of({
    list: Effect.fn("Plugins.list")(function*() {
      const plugins = [...loaded.values()].sort((a, b) => (a.found.manifest.id < b.found.manifest.id ? -1 : 1)).map(recordOf)
      const failedLater: Array<PluginLoadError> = [...loaded.values()].filter((p) => p.status === "failed").map((p) => ({
        error: "load_failed",
        message: p.lastError ?? "the worker failed",
        source_dir: p.found.dir,
        plugin_id: p.found.manifest.id
      }))
      return { plugins, errors: [...errors, ...failedLater] }
    }),
    get: Effect.fn("Plugins.get")(function*(id: string) {
      return recordOf(yield* lookup(id))
    }),
    route: Effect.fn("Plugins.route")(function*(id: string, name: string) {
      const plugin = yield* lookup(id)
      const route = plugin.found.manifest.contributes?.routes?.find((r) => r.name === name)
      if (route === undefined) return yield* Effect.fail(new NotFound({ message: `plugin ${id} has no route ${name}` }))
      return { plugin_id: id, name, scope: route.scope ?? "operator.admin" }
    }),
    callRoute: Effect.fn("Plugins.callRoute")(function*(id: string, name: string, input: unknown) {
      const plugin = yield* lookup(id)
      return yield* invoke(plugin, (client) => client.CallRoute({ name, input }))
    }),
    mcpServers: () =>
      [...loaded.values()]
        .filter((p) => p.status !== "failed")
        .sort((a, b) => (a.found.manifest.id < b.found.manifest.id ? -1 : 1))
        .flatMap((p) =>
          (p.found.manifest.contributes?.mcp_servers ?? []).map((server) => ({ plugin_id: p.found.manifest.id, source_dir: p.found.dir, server }))
        ),
    givenUp: PubSub.subscribe(givenUp)
  })
})
