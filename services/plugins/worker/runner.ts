/**
 * The program a plugin's worker thread runs (issue 26 §1): imports the
 * plugin's entry module (`workerData.entry_url`) and serves
 * {@link PluginRpcs} to the gateway over Effect's worker runner
 * (`NodeWorkerRunner` + `RpcServer.layerProtocolWorkerRunner`).
 *
 * Node 20 cannot run TypeScript, so the gateway starts the built form of this
 * file: `dist/cli/plugin-worker.mjs` (scripts/bundle.mjs) or tsc's
 * `dist/services/plugins/worker/runner.js` (PluginWorker.ts `runnerUrl`).
 *
 * @module
 */
import { NodeRuntime, NodeWorkerRunner } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { RpcServer } from "effect/rpc"
import { workerData } from "node:worker_threads"
import type { PluginDefinition } from "../api.ts"
import { PluginCallError, PluginRpcs, PluginWorkerData } from "./protocol.ts"

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error)).slice(0, 2000)

/** A handler's answer as JSON (what crosses the thread), or the call's failure. */
const call = (run: () => unknown): Effect.Effect<unknown, PluginCallError> =>
  Effect.tryPromise({
    try: async () => {
      const value = await run()
      return value === undefined ? null : JSON.parse(JSON.stringify(value))
    },
    catch: (error) => new PluginCallError({ message: describe(error) })
  })

const handlerOf = <F>(table: Readonly<Record<string, F>> | undefined, kind: string, name: string): Effect.Effect<F, PluginCallError> => {
  const handler = table !== undefined && Object.hasOwn(table, name) ? table[name] : undefined
  return typeof handler === "function" ? Effect.succeed(handler) : Effect.fail(new PluginCallError({ message: `the entry exports no ${kind} "${name}"` }))
}

const Handlers = PluginRpcs.toLayer(Effect.gen(function*() {
  const data = yield* Schema.decodeUnknownEffect(PluginWorkerData)(workerData).pipe(Effect.orDie)
  // An entry that does not load (a syntax error, a throw at its top level) is served as failing calls, so the
  // gateway learns why instead of seeing the thread die.
  const loaded = yield* Effect.result(Effect.tryPromise(() => import(data.entry_url) as Promise<Record<string, unknown>>))
  if (loaded._tag === "Failure") {
    const failed = Effect.fail(new PluginCallError({ message: describe(loaded.failure.cause) }))
    return PluginRpcs.of({ Describe: () => failed, CallTool: () => failed, RunCommand: () => failed, CallRoute: () => failed })
  }
  const plugin = (loaded.success.default ?? loaded.success) as PluginDefinition
  const context = { pluginId: data.plugin_id }
  const names = (table: object | undefined) => Object.keys(table ?? {}).filter((k) => typeof (table as any)[k] === "function")
  return PluginRpcs.of({
    Describe: () => Effect.succeed({ tools: names(plugin.tools), commands: names(plugin.commands), rpc: names(plugin.rpc) }),
    CallTool: ({ name, args, secrets, agent_id, session_id }) =>
      Effect.flatMap(handlerOf(plugin.tools, "tool", name), (handler) =>
        call(() => handler(args, { ...context, agentId: agent_id, sessionId: session_id, secrets }))),
    RunCommand: ({ name, args, agent_id }) =>
      Effect.flatMap(handlerOf(plugin.commands, "command", name), (handler) =>
        Effect.flatMap(call(() => handler(args, { ...context, agentId: agent_id })), (answer) =>
          typeof answer === "string"
            ? Effect.succeed({ output: answer })
            : typeof answer === "object" && answer !== null && typeof (answer as any).output === "string"
            ? Effect.succeed(answer as { output: string; data?: unknown })
            : Effect.fail(new PluginCallError({ message: `command "${name}" must answer a string or {output, data?}` })))),
    CallRoute: ({ name, input }) => Effect.flatMap(handlerOf(plugin.rpc, "rpc handler", name), (handler) => call(() => handler(input, context)))
  })
}))

RpcServer.layer(PluginRpcs).pipe(
  Layer.provide(Handlers),
  Layer.provide(RpcServer.layerProtocolWorkerRunner),
  Layer.provide(NodeWorkerRunner.layer),
  Layer.launch,
  NodeRuntime.runMain
)
