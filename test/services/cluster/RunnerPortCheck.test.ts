/**
 * The runner port check at start (services/cluster/RunnerPortCheck.ts): with `SVC_CLUSTER=1`, an `all` or `worker`
 * instance whose `SVC_RUNNER_PORT` is held by another process refuses to start with `RunnerPortUnavailable` naming the
 * setting; a free port starts and is released for the runner; an `edge` (no runner port) and a gateway without a
 * cluster are not checked.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { createServer, type Server } from "node:net"
import { GatewayConfig } from "../../../layers/config.ts"
import { RunnerPortCheck, probePort } from "../../../services/cluster/RunnerPortCheck.ts"
import { defaultSettings } from "../../../src/app/settings.ts"
import { freePort } from "../../support/docShell.ts"

/** The check with these settings, built and released. */
const check = (overrides: Parameters<typeof defaultSettings>[0]) =>
  Effect.exit(Layer.build(RunnerPortCheck.pipe(Layer.provide(Layer.succeed(GatewayConfig, defaultSettings({
    databaseUrl: "postgres://svc@db/svc",
    clusterSecret: Redacted.make("c".repeat(32)),
    ...overrides
  })))))).pipe(Effect.scoped)

/** A server holding `port` on every interface for the scope. */
const hold = (port: number) =>
  Effect.acquireRelease(
    Effect.callback<Server>((resume) => {
      const server = createServer()
      server.listen({ port }, () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.callback<void>((resume) => void server.close(() => resume(Effect.void)))
  )

describe("the runner port check", () => {
  it.live("a port held by another process stops the start of an all or worker instance, naming SVC_RUNNER_PORT", () =>
    Effect.scoped(Effect.gen(function*() {
      const port = yield* Effect.promise(() => freePort())
      yield* hold(port)
      for (const role of ["all", "worker"] as const) {
        const exit = yield* check({ clusterEnabled: true, role, runnerPort: port })
        expect(Exit.isFailure(exit)).toBe(true)
        const error = Exit.isFailure(exit) ? exit.cause.reasons.find((r) => r._tag === "Fail") : undefined
        expect(error?._tag === "Fail" ? error.error : undefined).toMatchObject({
          _tag: "RunnerPortUnavailable",
          port,
          message: expect.stringContaining(`SVC_RUNNER_PORT ${port} is in use by another process`)
        })
      }
      // An edge opens no runner port; without a cluster there is no runner port at all.
      expect(Exit.isSuccess(yield* check({ clusterEnabled: true, role: "edge", runnerPort: port }))).toBe(true)
      expect(Exit.isSuccess(yield* check({ clusterEnabled: false, runnerPort: port }))).toBe(true)
    })))

  it.live("a free port passes and is released for the runner", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() => freePort())
      expect(Exit.isSuccess(yield* check({ clusterEnabled: true, role: "all", runnerPort: port }))).toBe(true)
      expect(yield* probePort(port)).toBeUndefined()
    }))
})
