/**
 * One connection to an MCP server with `effect/ai`'s `McpClient` (protocol revision 2025-11-25): a stdio server is a
 * child process started through the platform's `ChildProcessSpawner` (its environment is only `PATH`, `HOME` and the
 * spec's `env`: the gateway's own variables, its tokens among them, are never passed on); an HTTP server is reached
 * with the `HttpClient` (streamable HTTP, the spec's headers on every request).
 *
 * The connection lives in the caller's scope: closing it ends the process (stdin closed, then SIGTERM and SIGKILL) or
 * the HTTP session.
 *
 * @module
 */
import { Deferred, Duration, Effect, Option, Redacted } from "effect"
import { McpClient, McpProtocol } from "effect/ai"
import { ChildProcess, ChildProcessSpawner } from "effect/process"
import { GATEWAY_VERSION } from "../../layers/config.ts"
import { isStdio, type McpServerSpec } from "./config.ts"

/** How long connecting and listing tools may take (30 s). */
export const MCP_CONNECT_TIMEOUT = Duration.seconds(30)

/** How long a server whose initialization failed is given to exit, so its exit code can be reported (250 ms). */
export const EXIT_GRACE = Duration.millis(250)

/** A connected server. */
export interface Connection {
  readonly client: McpClient.McpClient
  /** Completes, with why, when the server is gone on its own (a stdio server's process exited); never for HTTP. */
  readonly exited: Effect.Effect<string>
}

/** The child's environment: `PATH` and `HOME` of the gateway, then the spec's own variables. */
const childEnv = (env: Readonly<Record<string, string>> | undefined): Record<string, string | Redacted.Redacted<string> | undefined> => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  ...Object.fromEntries(Object.entries(env ?? {}).map(([name, value]) => [name, Redacted.make(value)]))
})

/**
 * Connects to `spec` (initialization included) in the current scope. Needs `ChildProcessSpawner` for a stdio server
 * and `HttpClient` for an HTTP one.
 */
export const connect = Effect.fnUntraced(function*(spec: McpServerSpec) {
  const clientOptions = { name: "svc-gateway", version: GATEWAY_VERSION, timeout: MCP_CONNECT_TIMEOUT }
  if (isStdio(spec)) {
    const spawner = yield* ChildProcessSpawner.ChildProcessSpawner
    // The transport keeps the process handle to itself; a spawner that hands it over too lets the supervisor see
    // the process exit at once instead of at the next call.
    const spawned = yield* Deferred.make<ChildProcessSpawner.ChildProcessHandle>()
    const watching = ChildProcessSpawner.make((command) =>
      Effect.tap(spawner.spawn(command), (handle) => Deferred.succeed(spawned, handle))
    )
    // Arguments and the spec's variables are `Redacted`: passed to the child as they are, never shown in an error.
    const command = ChildProcess.make(spec.command, (spec.args ?? []).map((arg) => Redacted.make(arg)), {
      env: childEnv(spec.env),
      extendEnv: false,
      ...(spec.cwd !== undefined ? { cwd: spec.cwd } : {})
    })
    const transport = yield* McpClient.stdio({ command, protocol: McpProtocol.v2025_11_25 }).pipe(
      Effect.provideService(ChildProcessSpawner.ChildProcessSpawner, watching)
    )
    const handle = yield* Deferred.await(spawned)
    const exited = handle.exitCode.pipe(
      Effect.match({
        // A process ended by a signal has no exit code: the platform's error names the signal.
        onFailure: (error) => {
          let cause: unknown = error
          let signal: string | undefined
          for (let depth = 0; depth < 4 && signal === undefined && cause instanceof Error; depth++) {
            signal = /signal: '(\w+)'/.exec(cause.message)?.[1]
            cause = (cause as { readonly cause?: unknown }).cause ?? (cause as { readonly reason?: unknown }).reason
          }
          return signal === undefined ? "its process ended" : `its process ended on ${signal}`
        },
        onSuccess: (code) => `its process exited with code ${code}`
      })
    )
    const client = yield* McpClient.make(clientOptions).pipe(
      Effect.provideService(McpClient.Transport, transport),
      // A server that exits at start is better described by its exit code than by the closed pipe the client saw
      // first: the exit follows within moments ({@link EXIT_GRACE}; a server still running keeps the client's error).
      Effect.catch((error) =>
        handle.exitCode.pipe(
          Effect.timeoutOption(EXIT_GRACE),
          Effect.orElseSucceed(() => Option.none()),
          Effect.flatMap((code) =>
            Effect.fail(Option.isSome(code) ? new Error(`its process exited with code ${code.value} before it was ready (${error.message})`) : error)
          )
        )
      )
    )
    return { client, exited } satisfies Connection
  }
  const transport = yield* McpClient.http({
    url: spec.url,
    protocol: McpProtocol.v2025_11_25,
    ...(spec.headers !== undefined ? { headers: spec.headers } : {})
  })
  const client = yield* McpClient.make(clientOptions).pipe(Effect.provideService(McpClient.Transport, transport))
  return { client, exited: Effect.never } satisfies Connection
})
