/**
 * The start-up gate: work a layer starts in the background that should not
 * compete with the rest of the start (the workflow runner: cluster tables,
 * runner registration, shard locks) waits on {@link StartupGate} `opened`.
 * The composition root (src/app/gateway.ts `GatewayLive`) opens it once the
 * HTTP server listens, so `GET /healthz` answers first; without a root (a
 * layer built alone, in tests) the default gate is already open.
 *
 * @module
 */
import { Context, Deferred, Effect, Layer } from "effect"

/** When background start-up work may begin. */
export interface StartupGateService {
  /** Completes once the gate is open (at once for the default gate). */
  readonly opened: Effect.Effect<void>
}

/** The gate; defaults to an open one. */
export const StartupGate = Context.Reference<StartupGateService>("svc-gateway/backplane/StartupGate", {
  defaultValue: () => ({ opened: Effect.void })
})

/**
 * A closed gate (`gate`: provide it beneath the services) and the effect
 * that opens it (`open`: run it once what must come first is up).
 */
export const makeStartupGate: Effect.Effect<{
  readonly gate: Layer.Layer<never>
  readonly open: Effect.Effect<void>
}> = Effect.map(Deferred.make<void>(), (deferred) => ({
  gate: Layer.succeed(StartupGate, { opened: Deferred.await(deferred) }),
  open: Effect.asVoid(Deferred.succeed(deferred, undefined))
}))
