/**
 * The whole dependency graph in one visible place (design.md "One dependency
 * graph"; docs/architecture.md). Settings enter once, as `GatewayConfig`
 * ({@link GatewayConfigLive}); every layer below reads them from there.
 *
 * ```
 * GatewayConfig
 *   ├─ Storage: StorageFromSettings (SQLite $SVC_HOME/gateway.db | PostgreSQL)
 *   ├─ subsystems (services/):   auth: AuthService ← DeviceTokenRepo (+ its migrations), RateLimiter, AuthConfig
 *   │                            policy: PolicyService
 *   │                            ws-sessions: ConnectionRegistry, EventBus, Presence, Capabilities, GatewayRequests
 *   │                            ─────────────────────────────────────────────── = GatewayServicesLive
 *   ├─ HTTP (src/http/):  GatewayHttpRoutes = routes of GatewayApi (one handler file per subsystem)
 *   │                     + the global middleware (request id, body limit, authentication, authorization)
 *   ├─ WS (src/ws/):      WsDispatchLive (handlers per subsystem) → WsServerLive (the /ws upgrade, connection actors)
 *   └─ infrastructure (layers/): NodeServerLive (node:http, timeouts, cap, drain), LeanNodeHttpServer, LoggingLive
 * GatewayHttpLive = HTTP + WS on one node:http server
 * GatewayLive     = GatewayHttpLive + GatewayServicesLive + LoggingLive + GatewayConfigLive(settings)
 * ```
 *
 * Adding a subsystem adds its service layer to {@link gatewayServices} and
 * its handler groups to {@link GatewayHttpRoutes} / {@link WsDispatchLive}.
 * Tests swap layers rather than patching: `gatewayServices({ storage })`
 * takes any `SqlClient` layer (e.g. `StorageMemoryTest`).
 */
import { NodeServices } from "@effect/platform-node"
import { Duration, Effect, FileSystem, Layer, Logger, Option, References } from "effect"
import { HttpRouter } from "effect/http"
import type { SqlClient } from "effect/sql"
import { join } from "node:path"
import { resolveAdminToken } from "../services/auth/adminToken.ts"
import { AuthConfig, AuthService } from "../services/auth/AuthService.ts"
import { DeviceTokenRepo } from "../services/auth/DeviceTokenRepo.ts"
import { RateLimitConfig, RateLimiter } from "../services/auth/RateLimiter.ts"
import { PolicyService } from "../services/policy/PolicyService.ts"
import { Capabilities } from "../services/ws-sessions/Capabilities.ts"
import { ConnectionRegistry } from "../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../services/ws-sessions/EventBus.ts"
import { GatewayRequests } from "../services/ws-sessions/GatewayRequests.ts"
import { Presence, PresenceConfig } from "../services/ws-sessions/Presence.ts"
import { GatewayConfig, type GatewaySettings } from "../src/config.ts"
import { GatewayApi, PlannedApi } from "../src/http/api/index.ts"
import { AuthHttp } from "../src/http/auth.ts"
import { DiagnosticsHttp } from "../src/http/diagnostics.ts"
import { DocsHttp } from "../src/http/docs.ts"
import { HealthHttp } from "../src/http/health.ts"
import { gatewayMiddleware } from "../src/http/middleware.ts"
import { PolicyHttp } from "../src/http/policy.ts"
import * as HttpRoutes from "../src/http/router.ts"
import { UiHttp } from "../src/http/ui.ts"
import { PlannedWsMessages, WsMessages } from "../src/ws/api/index.ts"
import { defaultWsSettings, WsConfig } from "../src/ws/config.ts"
import * as WsDispatch from "../src/ws/dispatch.ts"
import { WsServerLive } from "../src/ws/server.ts"
import { SessionsWs } from "../src/ws/sessions.ts"
import * as LeanNodeHttpServer from "./http/LeanNodeHttpServer.ts"
import * as BoundedMemoryStore from "./ratelimit/BoundedMemoryStore.ts"
import * as NodeServer from "./http/NodeServer.ts"
import { type DatabaseInfo, StorageLive } from "./storage/Storage.ts"

export { AuthConfig, AuthService } from "../services/auth/AuthService.ts"
export { DeviceTokenRepo } from "../services/auth/DeviceTokenRepo.ts"
export { RateLimiter } from "../services/auth/RateLimiter.ts"
export { PolicyService } from "../services/policy/PolicyService.ts"
export { Capabilities } from "../services/ws-sessions/Capabilities.ts"
export { ConnectionRegistry } from "../services/ws-sessions/ConnectionRegistry.ts"
export { EventBus } from "../services/ws-sessions/EventBus.ts"
export { GatewayRequests } from "../services/ws-sessions/GatewayRequests.ts"
export { Presence } from "../services/ws-sessions/Presence.ts"
export {
  defaultSettings,
  GatewayConfig,
  type GatewaySettings,
  type RawSettings,
  type SettingsOverrides,
  validateSettings
} from "../src/config.ts"
export { GatewayApi, PlannedApi } from "../src/http/api/index.ts"
export { WsServerLive } from "../src/ws/server.ts"
export { DatabaseInfo, StorageLive, StorageMemoryTest } from "./storage/Storage.ts"

/** Gateway version reported by presence and the start log. */
export const GATEWAY_VERSION = "0.1.0"

/** `GatewayConfig` from already validated settings: where settings enter the graph. */
export const GatewayConfigLive = (settings: GatewaySettings): Layer.Layer<GatewayConfig> => Layer.succeed(GatewayConfig, settings)

/** Resolves the admin token (env, else `$SVC_HOME/admin-token`, generated 0600 on first start). */
export const AuthConfigLive = Layer.effect(
  AuthConfig,
  Effect.gen(function*() {
    const settings = yield* GatewayConfig
    const resolved = yield* resolveAdminToken({ configured: Option.fromUndefinedOr(settings.adminToken), home: settings.home })
    return AuthConfig.of({
      enabled: settings.authEnabled,
      adminToken: resolved.token,
      adminTokenSource: resolved.source,
      adminTokenPath: resolved.path
    })
  })
).pipe(Layer.provide(NodeServices.layer))

/**
 * The SQL storage the settings ask for: `databaseUrl`, else SQLite at
 * `$SVC_HOME/gateway.db` (the directory is created, mode 0700, if missing).
 */
export const StorageFromSettings = Layer.unwrap(Effect.gen(function*() {
  const settings = yield* GatewayConfig
  if (settings.databaseUrl === undefined) {
    const fs = yield* FileSystem.FileSystem
    yield* fs.makeDirectory(settings.home, { recursive: true, mode: 0o700 })
  }
  return StorageLive({ databaseUrl: settings.databaseUrl, sqlitePath: join(settings.home, "gateway.db") })
})).pipe(Layer.provide(NodeServices.layer))

/** The failed-authentication limiter (`SVC_AUTH_RATE_LIMIT_*`), on a bounded in-memory store (10,000 addresses). */
export const RateLimiterLive = RateLimiter.layer.pipe(
  Layer.provide(Layer.effect(
    RateLimitConfig,
    Effect.map(GatewayConfig, (s) => ({ max: s.rateLimitMax, windowSeconds: s.rateLimitWindowSeconds }))
  )),
  Layer.provide(BoundedMemoryStore.layer())
)

/** WS transport settings (`SVC_WS_*`, see src/ws/config.ts). */
export const WsConfigLive = Layer.effect(
  WsConfig,
  Effect.map(GatewayConfig, (s) => ({
    ...defaultWsSettings,
    handshakeTimeout: Duration.millis(s.wsHandshakeTimeoutMs),
    pingInterval: Duration.millis(s.wsPingIntervalMs),
    pongTimeout: Duration.millis(s.wsPongTimeoutMs),
    maxPayloadBytes: s.wsMaxMessageBytes
  }))
)

/** Connection registry, event bus, presence, capabilities and gateway-initiated requests (services/ws-sessions). */
export const WsSessionsLive = Layer.mergeAll(
  Presence.layer.pipe(Layer.provide(Layer.succeed(PresenceConfig, {
    instanceId: `gw-${crypto.randomUUID()}`,
    version: GATEWAY_VERSION,
    ttl: Duration.seconds(60),
    pruneInterval: Duration.seconds(5),
    maxEntries: 500
  }))),
  GatewayRequests.layer,
  Capabilities.layer
).pipe(Layer.provideMerge(EventBus.layer), Layer.provideMerge(ConnectionRegistry.layer))

/**
 * Every domain service. `options.storage` replaces the database (any layer
 * providing a `SqlClient` and `DatabaseInfo`; repositories create their
 * tables). Needs {@link GatewayConfig}.
 */
export const gatewayServices = <E = never>(
  options?: { readonly storage?: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E> }
) => {
  const storage: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E | Layer.Error<typeof StorageFromSettings>, GatewayConfig> =
    options?.storage ?? StorageFromSettings
  const auth = AuthService.layer.pipe(
    Layer.provide(DeviceTokenRepo.layer),
    Layer.provideMerge(RateLimiterLive),
    Layer.provideMerge(AuthConfigLive),
    Layer.provideMerge(storage)
  )
  return Layer.mergeAll(auth, PolicyService.layer, WsSessionsLive)
}

/** Every domain service, on the storage the settings ask for. Needs {@link GatewayConfig}. */
export const GatewayServicesLive = gatewayServices()

/** WS request dispatch: every declared type, with the handlers of each subsystem. */
export const WsDispatchLive = WsDispatch.layer({ handled: WsMessages, planned: PlannedWsMessages }, [SessionsWs])

/**
 * All HTTP routes of {@link GatewayApi} plus the global middleware, for an
 * `HttpRouter` (compose with your own routes). Authorization covers the
 * declared routes and the spec's planned ones; anything else is forbidden to
 * device tokens.
 */
export const GatewayHttpRoutes = Layer.mergeAll(
  HttpRoutes.layer(GatewayApi, [HealthHttp, PolicyHttp, AuthHttp, DiagnosticsHttp, DocsHttp, UiHttp]),
  gatewayMiddleware(HttpRoutes.accessTable(GatewayApi, PlannedApi))
)

/**
 * Structured JSON logs at `SVC_LOG_LEVEL`. Nothing secret is ever put in a
 * log annotation: no token, cookie or Authorization value.
 */
export const LoggingLive = Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
  Layer.mergeAll(
    Logger.layer([Logger.consoleJson]),
    Layer.succeed(References.MinimumLogLevel, settings.logLevel)
  )))

/** A fresh `node:http` server with the settings' timeouts and connection cap, shared by HTTP and the WS upgrade. */
export const NodeServerLive = Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
  NodeServer.layer({
    headersTimeoutMs: settings.headersTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    maxConnections: settings.maxConnections
  })))

/**
 * Serves {@link GatewayHttpRoutes} and the `/ws` upgrade on one `node:http`
 * server bound to the settings' `host:port`. HTTP goes through our lean
 * adapter (`layers/http/LeanNodeHttpServer.ts`, see docs/performance.md),
 * which leaves the `upgrade` event to `WsServerLive`.
 */
export const GatewayHttpLive = Layer.unwrap(Effect.map(GatewayConfig, (settings) => {
  const http = Layer.unwrap(Effect.map(NodeServer.NodeServer, ({ server }) =>
    HttpRouter.serve(GatewayHttpRoutes, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(LeanNodeHttpServer.layer(() => server, { host: settings.host, port: settings.port }))
    )))
  // Built after the server, so released before it: the WS connections close (1001) and the drain starts
  // before the server stops listening and waits for in-flight requests.
  return Layer.mergeAll(WsServerLive.pipe(Layer.provide(WsDispatchLive), Layer.provide(WsConfigLive)), NodeServer.NodeServerDrainLive).pipe(
    Layer.provideMerge(http),
    Layer.provideMerge(NodeServerLive)
  )
}))

/**
 * The complete gateway from validated settings: HTTP and WS server, every
 * service, and logging (also for whatever is built on top of it, e.g. a
 * start log).
 */
export const GatewayLive = <E = never>(
  settings: GatewaySettings,
  options?: { readonly storage?: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E> }
) =>
  GatewayHttpLive.pipe(
    Layer.provideMerge(gatewayServices(options)),
    Layer.provideMerge(LoggingLive),
    Layer.provideMerge(GatewayConfigLive(settings))
  )
