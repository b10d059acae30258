/**
 * The runner port check at start (issue 27 §1; docs/scaling.md "Runners"): with `SVC_CLUSTER=1`, an `all` or
 * `worker` instance listens for the other runners on `SVC_RUNNER_PORT`, but its workflow runner is built off the
 * start-up path (services/workflow/engineInBackground.ts), where a port already taken would only be a logged error
 * and an instance serving without a runner. So the start binds the port once (every interface, as the listener does)
 * and releases it; a port that cannot be bound stops the start with {@link RunnerPortUnavailable}, naming the
 * setting. An `edge` opens no runner port and is not checked.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { createServer } from "node:net"
import { GatewayConfig } from "../../layers/config.ts"
import { RunnerPortUnavailable } from "./errors.ts"

/** Why `port` could not be bound, or `undefined` when it could (it is released at once). */
export const probePort = (port: number): Effect.Effect<string | undefined> =>
  Effect.callback<string | undefined>((resume) => {
    const server = createServer()
    server.once("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed(error.code ?? error.message)))
    server.listen({ port, exclusive: true }, () => server.close(() => resume(Effect.succeed(undefined))))
  })

/** Fails the start with {@link RunnerPortUnavailable} when this instance's runner port cannot be bound. Needs `GatewayConfig`. */
export const RunnerPortCheck: Layer.Layer<never, RunnerPortUnavailable, GatewayConfig> = Layer.effectDiscard(
  Effect.gen(function*() {
    const settings = yield* GatewayConfig
    if (!settings.clusterEnabled || settings.role === "edge") return
    const port = settings.runnerPort
    const problem = yield* probePort(port)
    if (problem === undefined) return
    return yield* new RunnerPortUnavailable({
      port,
      message: problem === "EADDRINUSE"
        ? `SVC_RUNNER_PORT ${port} is in use by another process: give each instance on one machine its own runner port ` +
          "(SVC_RUNNER_PORT / --runner-port, 1-65535; docs/scaling.md)"
        : `SVC_RUNNER_PORT ${port} cannot be listened on (${problem}): choose another port with SVC_RUNNER_PORT / --runner-port ` +
          "(1-65535; below 1024 needs privileges; docs/scaling.md)"
    })
  })
)
