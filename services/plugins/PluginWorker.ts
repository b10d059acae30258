/**
 * A plugin's worker (issue 26 §1; docs/plugins.md "Isolation"): its entry
 * module runs in its own `node:worker_threads` thread, reached through
 * `effect/rpc` over Effect's worker protocol (`RpcClient.layerProtocolWorker`
 * on `@effect/platform-node`'s `NodeWorker`; the thread runs
 * worker/runner.ts). The thread gets an empty environment (no gateway
 * secret leaks through `process.env`) and a heap limit; what it prints is
 * passed on line by line (the host logs it), never mixed into the gateway's
 * output.
 *
 * Every call has a deadline ({@link PluginWorker.call}). A call past it
 * fails with `Timeout` and the thread is terminated, which also ends a
 * plugin stuck in a loop; a thread that exits for any reason is reported to
 * `onExit`, and the worker protocol starts a new one a second later (calls
 * made meanwhile wait for it). The host (Plugins.ts) decides when to give up.
 *
 * @module
 */
import { NodeServices, NodeWorker } from "@effect/platform-node"
import { Duration, Effect, Exit, FileSystem, Layer, Option, Scope } from "effect"
import { RpcClient } from "effect/rpc"
import type { RpcClientError } from "effect/rpc/RpcClientError"
import { join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Worker } from "node:worker_threads"
import { findPackageRoot } from "../shared/packageRoot.ts"
import { type PluginCallError, PluginRpcs } from "./worker/protocol.ts"

/** Why a call into a plugin failed: its handler failed, it took too long, or the worker is down. */
export type PluginCallFailure =
  | { readonly _tag: "HandlerFailed"; readonly message: string }
  | { readonly _tag: "Timeout"; readonly message: string }
  | { readonly _tag: "Unavailable"; readonly message: string }

/** The client of one worker. */
export type PluginClient = RpcClient.FromGroup<typeof PluginRpcs, RpcClientError>

/** A running plugin worker. */
export interface PluginWorker {
  /**
   * Runs one call with the deadline (`timeoutMs`, default the worker's call timeout); past it the thread is
   * terminated (and started again by the protocol).
   */
  readonly call: <A>(
    f: (client: PluginClient) => Effect.Effect<A, PluginCallError | RpcClientError>,
    timeoutMs?: number
  ) => Effect.Effect<A, PluginCallFailure>
  /** Stops the worker (asks the thread to close, terminates it after 5 s). */
  readonly close: Effect.Effect<void>
}

/** How to start a worker. */
export interface PluginWorkerOptions {
  readonly pluginId: string
  /** The entry module, as a `file:` URL. */
  readonly entryUrl: string
  /** The runner program ({@link runnerUrl}). */
  readonly runner: URL
  readonly timeoutMs: number
  /** Told each time a thread exits other than by {@link PluginWorker.close}, with its exit code. */
  readonly onExit: (code: number) => void
  /** Told each line the plugin writes to its stdout or stderr (the gateway's own output stays structured logs). */
  readonly onOutput: (stream: "stdout" | "stderr", line: string) => void
}

/** Longest line of a plugin's output passed on, in characters (the rest is cut). */
export const MAX_OUTPUT_LINE = 2000

/** Calls `emit` with each line of `stream` (a thread's stdout or stderr), cut at {@link MAX_OUTPUT_LINE}. */
const forwardLines = (stream: NodeJS.ReadableStream, emit: (line: string) => void) => {
  let pending = ""
  stream.setEncoding("utf8")
  stream.on("data", (chunk: string) => {
    pending += chunk
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    if (pending.length > MAX_OUTPUT_LINE) {
      lines.push(pending)
      pending = ""
    }
    for (const line of lines) if (line !== "") emit(line.slice(0, MAX_OUTPUT_LINE))
  })
  stream.on("end", () => {
    if (pending !== "") emit(pending.slice(0, MAX_OUTPUT_LINE))
  })
}

/**
 * The deadline of a worker's first answer after it (re)starts, in ms, at least: its thread must start, import the
 * entry, and after a failure the worker protocol waits a second before starting a new thread.
 */
export const STARTUP_TIMEOUT_MS = 6_000

/** Heap limit of a plugin's thread, in MiB. */
export const PLUGIN_HEAP_MB = 256

/**
 * The runner program the thread executes, in the first form that exists: tsc's output beside this module
 * (`dist/services/plugins/worker/runner.js`), the bundled CLI's (`dist/cli/plugin-worker.mjs`, beside the bundle's
 * chunks), or, when running from the sources (tests, Deno), the package's bundle (`npm run build`).
 */
export const runnerUrl: Effect.Effect<Option.Option<URL>> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const root = yield* findPackageRoot(new URL(import.meta.url))
  const candidates = [
    new URL("./worker/runner.js", import.meta.url),
    new URL("./plugin-worker.mjs", import.meta.url),
    ...Option.toArray(Option.map(root, (dir) => pathToFileURL(join(dir, "dist", "cli", "plugin-worker.mjs"))))
  ]
  for (const candidate of candidates) {
    // fileURLToPath, not the URL's pathname: a directory holding `%`, `#` or `?` (or a Windows drive) reads right.
    if (yield* fs.exists(fileURLToPath(candidate)).pipe(Effect.orElseSucceed(() => false))) return Option.some(candidate)
  }
  return Option.none()
}).pipe(Effect.provide(NodeServices.layer))

const describe = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error ? String((error as { message: unknown }).message) : String(error)

/** Starts a worker for a plugin; its thread is spawned now (the first call waits for it to be ready). */
export const startWorker = Effect.fnUntraced(function*(options: PluginWorkerOptions) {
  const scope = yield* Scope.make()
  let thread: Worker | undefined
  let closing = false
  const spawn = () => {
    const spawned = new Worker(options.runner, {
      workerData: { plugin_id: options.pluginId, entry_url: options.entryUrl },
      env: {},
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: PLUGIN_HEAP_MB },
      stdout: true,
      stderr: true
    })
    forwardLines(spawned.stdout, (line) => options.onOutput("stdout", line))
    forwardLines(spawned.stderr, (line) => options.onOutput("stderr", line))
    spawned.on("exit", (code) => {
      if (!closing) options.onExit(code)
    })
    thread = spawned
    return spawned
  }
  const protocol = RpcClient.layerProtocolWorker({ size: 1, concurrency: 64 }).pipe(Layer.provide(NodeWorker.layer(spawn)))
  const context = yield* Layer.buildWithScope(protocol, scope).pipe(Effect.orDie)
  const client: PluginClient = yield* RpcClient.make(PluginRpcs).pipe(Effect.provideContext(context), Scope.provide(scope))
  const call: PluginWorker["call"] = (f, timeoutMs = options.timeoutMs) =>
    Effect.suspend(() => {
      // Only the thread that had the call is ended at the deadline: a call that waited for a thread being started
      // again must not end the new one.
      const calledThread = thread
      return f(client).pipe(
        Effect.mapError((error): PluginCallFailure =>
          error._tag === "PluginCallError"
            ? { _tag: "HandlerFailed", message: error.message }
            : { _tag: "Unavailable", message: `the plugin's worker is not available (${describe(error)})` }
        ),
        Effect.timeoutOption(Duration.millis(timeoutMs)),
        Effect.flatMap(Option.match({
          onSome: Effect.succeed,
          onNone: () =>
            Effect.sync(() => {
              if (calledThread !== undefined && calledThread === thread) void calledThread.terminate()
            }).pipe(
              Effect.andThen(Effect.fail<PluginCallFailure>({
                _tag: "Timeout",
                message: `the plugin did not answer within ${timeoutMs} ms; its worker was restarted`
              }))
            )
        }))
      )
    })

  const close = Effect.suspend(() => {
    closing = true
    return Scope.close(scope, Exit.void)
  })
  return { call, close } satisfies PluginWorker
})
