/** Helpers of the executor tests: an attempt context, a local HTTP server, running one attempt, the Http steps' gateway. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, Redacted } from "effect"
import type { ActionPrimitive } from "../../../../services/planner/schema.ts"
import { HttpStepContext, SecretUnavailable } from "../../../../services/workflow/executors/HttpStepContext.ts"
import type { AttemptContext, AttemptFailed, AttemptOutcome } from "../../../../services/workflow/StepExecutor.ts"

export const context = (over: Partial<AttemptContext> = {}): AttemptContext => ({
  run_id: "run-1",
  step_index: 0,
  step_id: "step-1",
  attempt_id: "attempt-1",
  attempt: 1,
  timeout_ms: 5_000,
  ...over
})

export const step = (type: ActionPrimitive["type"], args: Record<string, unknown>, extra: Partial<ActionPrimitive> = {}): ActionPrimitive => ({
  type,
  args,
  ...extra
})

/** The failure of `effect`, which must fail (a success fails the test). */
export const failureOf = (effect: Effect.Effect<AttemptOutcome, AttemptFailed>) =>
  Effect.flip(effect).pipe(Effect.mapError((outcome) => new Error(`expected a failure, got ${JSON.stringify(outcome)}`)))

/** A local HTTP server on 127.0.0.1:0 (closed with the scope), counting its requests. */
export const localServer = (handler: http.RequestListener) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ server: http.Server; url: string }>((resolve) => {
        const server = http.createServer(handler)
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resolve({ server, url: `http://127.0.0.1:${port}` })
        })
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  )

/** A port nothing listens on (bound, then closed). */
export const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = http.createServer()
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/**
 * A `HttpStepContext` for tests: egress rules that deny `deny` (default
 * allow), the secrets of `secrets` by handle id (any other handle is
 * unavailable); `resolutions` records each resolution's handle and purpose.
 */
export const httpStepContext = (options: { readonly deny?: ReadonlyArray<string>; readonly secrets?: Readonly<Record<string, string>> } = {}) => {
  const resolutions: Array<{ readonly handle_id: string; readonly purpose: string }> = []
  const service = HttpStepContext.of({
    egressRules: () => Effect.succeed({ default: "allow", allow: [], require_approval: [], deny: [...(options.deny ?? [])] }),
    secretScopes: (_agent, handles) => Effect.succeed(handles.filter((h) => options.secrets?.[h] !== undefined).map((h) => `scope-of-${h}`)),
    resolveSecret: (_run, handle_id, purpose) => {
      resolutions.push({ handle_id, purpose })
      const value = options.secrets?.[handle_id]
      return value === undefined
        ? Effect.fail(new SecretUnavailable({ message: `secret handle ${handle_id} not found` }))
        : Effect.succeed(Redacted.make(value))
    }
  })
  return { service, resolutions, layer: Layer.succeed(HttpStepContext, service) }
}
