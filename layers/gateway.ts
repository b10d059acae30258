/**
 * The whole dependency graph in one visible place (design.md "One dependency
 * graph"). Platform teams compose these layers into their own Effect apps:
 *
 * ```
 * GatewayConfig ─┬─ StorageLive (SQLite | PostgreSQL, migrated) ── DeviceTokenRepo ─┐
 *                ├─ AuthConfigLive (admin token: env | $SVC_HOME/admin-token) ───────┼─ AuthService
 *                ├─ RateLimiter                                                        │
 *                └─ PolicyService                                                      │
 * GatewayHttpRoutes (routes + global middleware) ── needs the services above ─────────┘
 * GatewayHttpLive = HttpRouter.serve(GatewayHttpRoutes) on a node:http server (LeanNodeHttpServer)
 * GatewayLive     = GatewayHttpLive + GatewayServicesLive
 * ```
 *
 * Tests swap layers rather than patching: `GatewayServicesLive(settings, { storage })`
 * takes any `SqlClient` layer (e.g. `StorageMemoryTest`).
 */
import { NodeServices } from "@effect/platform-node"
import { Duration, Effect, FileSystem, Layer, Logger, Option, References } from "effect"
import { HttpRouter } from "effect/http"
import type { SqlClient } from "effect/sql"
import { join } from "node:path"
import { AuthConfig, AuthService } from "../services/auth/AuthService.ts"
import { resolveAdminToken } from "../services/auth/adminToken.ts"
import { DeviceTokenRepo } from "../services/auth/DeviceTokenRepo.ts"
import { RateLimitConfig, RateLimiter } from "../services/auth/RateLimiter.ts"
import { PolicyService } from "../services/policy/PolicyService.ts"
import * as LeanNodeHttpServer from "./http/LeanNodeHttpServer.ts"
import { GatewayConfig, type GatewaySettings } from "../src/config.ts"
import { GatewayMiddlewareLive } from "../src/http/middleware.ts"
import { AuthRoutes } from "../src/http/routes/auth.ts"
import { HealthRoutes } from "../src/http/routes/health.ts"
import { OpenApiRoutes } from "../src/http/routes/openapi.ts"
import { PolicyRoutes } from "../src/http/routes/policy.ts"
import { ConnectionRoutes } from "../src/http/routes/connections.ts"
import { UiRoutes } from "../src/http/routes/ui.ts"
import { defaultWsSettings, WsConfig } from "../src/ws/config.ts"
import { WsServerLive } from "../src/ws/server.ts"
import * as NodeServer from "./http/NodeServer.ts"
import { ConnectionRegistry } from "../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../services/ws-sessions/EventBus.ts"
import { GatewayRequests } from "../services/ws-sessions/GatewayRequests.ts"
import { Presence, PresenceConfig } from "../services/ws-sessions/Presence.ts"
import { DatabaseInfo, StorageLive } from "./storage/Storage.ts"

export { AuthConfig, AuthService } from "../services/auth/AuthService.ts"
export { DeviceTokenRepo } from "../services/auth/DeviceTokenRepo.ts"
export { RateLimiter } from "../services/auth/RateLimiter.ts"
export { PolicyService } from "../services/policy/PolicyService.ts"
export { ConnectionRegistry } from "../services/ws-sessions/ConnectionRegistry.ts"
export { EventBus } from "../services/ws-sessions/EventBus.ts"
export { GatewayRequests } from "../services/ws-sessions/GatewayRequests.ts"
export { Presence } from "../services/ws-sessions/Presence.ts"
export { WsServerLive } from "../src/ws/server.ts"
export { GatewayConfig } from "../src/config.ts"
export { defaultSettings, type GatewaySettings, type RawSettings, type SettingsOverrides, validateSettings } from "../src/config.ts"
export { DatabaseInfo, StorageLive, StorageMemoryTest } from "./storage/Storage.ts"

/** `GatewayConfig` from already validated settings. */
export const GatewayConfigLive = (settings: GatewaySettings) => Layer.succeed(GatewayConfig, settings)

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

/**
 * Every domain service, built from `settings`. `options.storage` replaces the
 * database (it must provide a migrated `SqlClient` and `DatabaseInfo`).
 */
export const GatewayServicesLive = <E = never>(
  settings: GatewaySettings,
  options?: { readonly storage?: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E> }
) => {
  const config = GatewayConfigLive(settings)
  const storage: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E | Layer.Error<typeof StorageFromSettings>> =
    options?.storage ?? StorageFromSettings.pipe(Layer.provide(config))
  const rateLimiter = RateLimiter.layer.pipe(
    Layer.provide(Layer.succeed(RateLimitConfig, { max: settings.rateLimitMax, windowSeconds: settings.rateLimitWindowSeconds }))
  )
  const auth = AuthService.layer.pipe(
    Layer.provide(DeviceTokenRepo.layer),
    Layer.provideMerge(rateLimiter),
    Layer.provideMerge(AuthConfigLive),
    Layer.provideMerge(storage)
  )
  return Layer.mergeAll(auth, PolicyService.layer, WsSessionsLive(settings)).pipe(Layer.provideMerge(config))
}

/** Gateway version reported by presence and the start log. */
export const GATEWAY_VERSION = "0.1.0"

/** WS settings from the gateway settings (see `src/ws/config.ts`). */
export const WsConfigLive = (settings: GatewaySettings) =>
  Layer.succeed(WsConfig, {
    ...defaultWsSettings,
    handshakeTimeout: Duration.millis(settings.wsHandshakeTimeoutMs),
    pingInterval: Duration.millis(settings.wsPingIntervalMs),
    pongTimeout: Duration.millis(settings.wsPongTimeoutMs),
    maxPayloadBytes: settings.wsMaxMessageBytes
  })

/**
 * Connection registry, event bus, gateway-initiated requests and presence
 * (services/ws-sessions), plus the WS settings.
 */
export const WsSessionsLive = (settings: GatewaySettings) => {
  const presenceConfig = Layer.succeed(PresenceConfig, {
    instanceId: `gw-${crypto.randomUUID()}`,
    version: GATEWAY_VERSION,
    ttl: Duration.seconds(60),
    pruneInterval: Duration.seconds(5),
    maxEntries: 500
  })
  return Layer.mergeAll(Presence.layer.pipe(Layer.provide(presenceConfig)), GatewayRequests.layer).pipe(
    Layer.provideMerge(EventBus.layer),
    Layer.provideMerge(ConnectionRegistry.layer),
    Layer.provideMerge(WsConfigLive(settings))
  )
}

/** All HTTP routes plus the global middleware, for an `HttpRouter` (compose with your own routes). */
export const GatewayHttpRoutes = Layer.mergeAll(
  HealthRoutes,
  PolicyRoutes,
  AuthRoutes,
  OpenApiRoutes,
  ConnectionRoutes,
  UiRoutes,
  GatewayMiddlewareLive
)

/**
 * Structured JSON logs at `settings.logLevel` (SVC_LOG_LEVEL). Nothing secret
 * is ever put in a log annotation: no token, cookie or Authorization value.
 */
export const LoggingLive = (settings: GatewaySettings) =>
  Layer.mergeAll(
    Logger.layer([Logger.consoleJson]),
    Layer.succeed(References.MinimumLogLevel, settings.logLevel)
  )

/** A fresh `node:http` server with the settings' timeouts and connection cap, shared by HTTP and the WS upgrade. */
export const NodeServerLive = (settings: GatewaySettings) =>
  NodeServer.layer({
    headersTimeoutMs: settings.headersTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    maxConnections: settings.maxConnections
  })

/**
 * Serves {@link GatewayHttpRoutes} and the `/ws` upgrade on one `node:http`
 * server bound to `settings.host:port`. HTTP goes through our lean adapter
 * (`layers/http/LeanNodeHttpServer.ts`, see docs/performance.md), which
 * leaves the `upgrade` event to `WsServerLive`.
 */
export const GatewayHttpLive = (settings: GatewaySettings) => {
  const http = Layer.unwrap(Effect.map(NodeServer.NodeServer, ({ server }) =>
    HttpRouter.serve(GatewayHttpRoutes, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(LeanNodeHttpServer.layer(() => server, { host: settings.host, port: settings.port }))
    )))
  // Built after the server, so released before it: the WS connections close (1001) and the drain starts
  // before the server stops listening and waits for in-flight requests.
  return Layer.mergeAll(WsServerLive, NodeServer.NodeServerDrainLive).pipe(
    Layer.provideMerge(http),
    Layer.provideMerge(NodeServerLive(settings))
  )
}

/** The complete gateway: HTTP server plus every service and logging, from validated settings. */
export const GatewayLive = <E = never>(
  settings: GatewaySettings,
  options?: { readonly storage?: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E> }
) =>
  GatewayHttpLive(settings).pipe(
    Layer.provideMerge(GatewayServicesLive(settings, options)),
    Layer.provide(LoggingLive(settings))
  )
