/**
 * The whole dependency graph in one visible place (design.md "One dependency
 * graph"; docs/architecture.md). Settings enter once, as `GatewayConfig`
 * ({@link GatewayConfigLive}); every layer reads what it needs from there.
 *
 * ```
 * GatewayConfigLive(settings) ─► GatewayConfig
 *   │
 *   ├─ storage: StorageFromSettings (SQLite $SVC_HOME/gateway.db | PostgreSQL) ─► SqlClient, DatabaseInfo
 *   │
 *   ├─ Subsystems (one row each: its service layer, its HTTP and WS handlers)
 *   │     sessions  services/ws-sessions  WsSessionsLive         src/http/diagnostics.ts  src/ws/sessions.ts
 *   │     auth      services/auth         AuthService.layer      src/http/auth.ts
 *   │     policy    services/policy       PolicyService.layer    src/http/policy.ts
 *   │     policy-bundle services/policy-bundle PolicyBundle.layer (+ PolicyOverrides)  src/http/policyBundle.ts
 *   │     approvals services/approvals     Approvals.layer        src/http/approvals.ts    src/ws/approvals.ts
 *   │     pairing   services/pairing       Pairings.layer         src/http/pairing.ts      src/ws/pairing.ts
 *   │     nodes     services/nodes         NodesLive (capabilities, dispatch, listing)  src/http/nodes.ts  src/ws/nodes.ts
 *   │     planner   services/planner       Planner.layer (+ PlanExecutionLive: runs over the workflow subsystem)  src/http/plan.ts
 *   │     secrets   services/secrets       SecretStore.layer (+ Secrets, SecretResolver; provider layers/secrets)  src/http/secrets.ts
 *   │     auth-profiles services/auth-profiles AuthProfiles.layer (+ SecretStore, SecretResolver)  src/http/authProfiles.ts
 *   │     provider-oauth services/provider-oauth ProviderOAuth.layer (+ AuthProfiles, SecretStore, SecretResolver)  src/http/providerOAuth.ts
 *   │     workflow  services/workflow      WorkflowLive (engine, executors, run records, approvals)  src/http/workflow.ts  src/ws/workflow.ts
 *   │     playbooks services/playbooks     PlaybooksLive ($SVC_HOME/playbooks, watched; runs over WorkflowLive)  src/http/playbooks.ts
 *   │     watchers  services/watchers      WatchersLive (Watchers + WebhookTrigger, over SecretsLive)  src/http/watchers.ts
 *   │     snapshots services/snapshots     Snapshots.layer (export, import of every stateful table)  src/http/snapshots.ts
 *   │     routing   services/routing       RoutingConfigService.layer  src/http/routing.ts
 *   │     diagnostics services/diagnostics Diagnostics.layer (status, metrics, usage)  src/http/runtime.ts
 *   │     audit     services/audit         AuditLog.layer (hash chains, subscribed to every Decision; + DomainEvents)  src/http/audit.ts
 *   │     contracts src/contracts (JSON Schema catalog of the wire schemas)  src/contracts/catalogHttp.ts
 *   │     gateway   (none)                                       src/http/{health,docs,ui}.ts
 *   │   ─► GatewayServicesLive = every subsystem layer (each wires its own dependencies; shared ones are built once)
 *   │      over DomainEvents (built first, with the audit chain subscribed: AuditLog.layer), the storage and the observability switches (services/diagnostics/observability.ts: SVC_METRICS, OTLP tracing)
 *   │
 *   ├─ HTTP: GatewayHttpRoutes = HttpApiBuilder.layer(GatewayApi) (the handler group of every row) + the global middleware
 *   ├─ WS:   WsDispatchLive (handlers of every row) ─► WsServerLive (the /ws upgrade, one actor per connection)
 *   └─ infrastructure: NodeServer (node:http: timeouts, cap, drain), HTTP adapter (LeanNodeHttpServer | platform-node), LoggingLive
 *
 * gatewayHttp(adapter) = HTTP + WS on one node:http server; GatewayHttpLive = gatewayHttp("lean")
 * GatewayLive     = GatewayHttpLive + GatewayServicesLive + LoggingLive + GatewayConfigLive(settings)
 * ```
 *
 * Adding a subsystem adds one row to {@link Subsystems}. Tests swap layers
 * rather than patching: `gatewayServices({ storage })` takes any `SqlClient`
 * layer (e.g. `StorageMemoryTest`).
 */
import { NodeHttpServer, NodeServices } from "@effect/platform-node"
import { Effect, FileSystem, Layer, Logger, References } from "effect"
import { HttpRouter, HttpServer } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import type { SqlClient } from "effect/sql"
import { join } from "node:path"
import { hostname } from "node:os"
import { observabilityFromSettings } from "../../services/diagnostics/observability.ts"
import { GatewayApi, PlannedApi, PlannedWsMessages, WsMessages } from "./contracts.ts"
import { Subsystems } from "./subsystems.ts"
import { SnapshotTableSet } from "../../services/snapshots/tableSet.ts"
import { GatewayTableSet } from "./tables.ts"
import { AuditLog } from "../../services/audit/AuditLog.ts"
import { gatewayMiddleware } from "../http/middleware.ts"
import { accessTable, makeRouteMatcher } from "../http/authorization.ts"
import { AuthenticationLive, authenticatedFromHeaders } from "../http/authentication.ts"
import { AuthService } from "../../services/auth/AuthService.ts"
import { RequestErrorsLive, WildcardBasesRouter } from "../http/serve.ts"
import { WsConfig } from "../ws/config.ts"
import * as WsDispatch from "../ws/dispatch.ts"
import { WsServerLive } from "../ws/server.ts"
import { GatewayConfig, type GatewaySettings } from "../../layers/config.ts"
import * as LeanNodeHttpServer from "../../layers/http/LeanNodeHttpServer.ts"
import * as NodeServer from "../../layers/http/NodeServer.ts"
import { type DatabaseInfo, StorageLive } from "../../layers/storage/Storage.ts"
import { migrateAll, type MigrationSet } from "../../layers/storage/migrations.ts"
import { BackplaneMode } from "../../services/backplane/mode.ts"
import { makeStartupGate } from "../../services/backplane/StartupGate.ts"
import { RoleJobs, servesClients } from "../../services/cluster/roles.ts"

export { Approvals, ApprovalsConfig } from "../../services/approvals/Approvals.ts"
export { AuditLog } from "../../services/audit/AuditLog.ts"
export { AuthConfig, AuthService } from "../../services/auth/AuthService.ts"
export { AuthProfileReferences, AuthProfileReferencesLive, AuthProfiles } from "../../services/auth-profiles/AuthProfiles.ts"
export { DeviceTokenRepo } from "../../services/auth/DeviceTokenRepo.ts"
export { RateLimiter } from "../../services/auth/RateLimiter.ts"
export { Pairings } from "../../services/pairing/Pairings.ts"
export { Playbooks, PlaybooksLive } from "../../services/playbooks/Playbooks.ts"
export { Watchers } from "../../services/watchers/Watchers.ts"
export { WebhookTrigger } from "../../services/watchers/webhook/WebhookTrigger.ts"
export { PolicyService } from "../../services/policy/PolicyService.ts"
export { PolicyBundle } from "../../services/policy-bundle/PolicyBundle.ts"
export { PolicyOverrides } from "../../services/policy-bundle/PolicyOverrides.ts"
export { PolicySources } from "../../services/policy-bundle/PolicySources.ts"
export { Capabilities } from "../../services/nodes/Capabilities.ts"
export { NodeDispatch } from "../../services/nodes/NodeDispatch.ts"
export { Nodes, NodesLive } from "../../services/nodes/Nodes.ts"
export { Backplane } from "../../services/backplane/Backplane.ts"
export { ConnectionRegistry } from "../../services/ws-sessions/ConnectionRegistry.ts"
export { EventBus } from "../../services/ws-sessions/EventBus.ts"
export { GatewayRequests } from "../../services/ws-sessions/GatewayRequests.ts"
export { Presence } from "../../services/ws-sessions/Presence.ts"
export { WsSessionsLive } from "../../services/ws-sessions/WsSessions.ts"
export { GatewayApi, PlannedApi } from "./contracts.ts"
export { WsServerLive } from "../ws/server.ts"
export { GATEWAY_VERSION, GatewayConfig, type GatewaySettings, type RawSettings, type SettingsOverrides } from "../../layers/config.ts"
export { defaultSettings, validateSettings } from "./settings.ts"
export { DatabaseInfo, StorageLive, StorageMemoryTest } from "../../layers/storage/Storage.ts"

/** `GatewayConfig` from already validated settings: where settings enter the graph. */
export const GatewayConfigLive = (settings: GatewaySettings): Layer.Layer<GatewayConfig> =>
  Layer.merge(
    Layer.succeed(GatewayConfig, settings),
    // The backplane's mode (services/backplane/mode.ts): a reference, so it adds nothing to the layer's type.
    Layer.succeed(BackplaneMode, {
      cluster: settings.clusterEnabled,
      role: settings.role,
      // The cluster's runner (services/workflow/engine/ClusterRunner.ts); the settings require the secret with SVC_CLUSTER=1.
      runner: settings.clusterEnabled && settings.clusterSecret !== undefined
        ? { host: settings.runnerHost ?? hostname(), port: settings.runnerPort, secret: settings.clusterSecret }
        : undefined
    })
  )

export { Subsystems } from "./subsystems.ts"
export { SecretsLive } from "../../services/secrets/index.ts"
export { AuthProfilesLive } from "../../services/auth-profiles/index.ts"
export { WatchersLive } from "../../services/watchers/index.ts"

type Row = (typeof Subsystems)[number]
type HttpRow = Row["http"][number]
type RouterRow = Row["routes"][number]["layer"]
type WsRow = Row["ws"][number]
type WsGroupServices<G> = G extends WsDispatch.WsHandlerGroup<infer R> ? R : never
/** The subsystem layers, merged: every service, their errors, and what they need (storage and settings). */
type SubsystemsLayer = Layer.Layer<Layer.Success<Row["layer"]>, Layer.Error<Row["layer"]>, Layer.Services<Row["layer"]>>
/** The HTTP handler layers (one `HttpApiBuilder.group` per group of `GatewayApi`), merged. */
type HttpHandlersLayer = Layer.Layer<
  Layer.Success<HttpRow>,
  Layer.Error<HttpRow>,
  Layer.Services<HttpRow>
>

const subsystemLayers = Layer.mergeAll(...(Subsystems.map((s) => s.layer) as unknown as [SubsystemsLayer]))
const httpHandlers = Layer.mergeAll(
  ...(Subsystems.flatMap((s): ReadonlyArray<HttpRow> => s.http) as unknown as [HttpHandlersLayer])
)
/** The routes served outside `GatewayApi` (src/subsystem/Subsystem.ts `RouterRoutes`, e.g. `/mcp`), merged. */
type RouterRoutesLayer = Layer.Layer<Layer.Success<RouterRow>, Layer.Error<RouterRow>, Layer.Services<RouterRow>>
const routerRoutes = Subsystems.flatMap((s): ReadonlyArray<RouterRow> => s.routes.map((r) => r.layer))
const routerRoutesLayer: RouterRoutesLayer = routerRoutes.length === 0
  ? (Layer.empty as unknown as RouterRoutesLayer)
  : Layer.mergeAll(...(routerRoutes as unknown as [RouterRoutesLayer]))
/**
 * Every declared route with its access: `GatewayApi`'s, the spec's planned
 * ones (`PlannedApi`) and the subsystems' router routes (e.g. `/mcp`).
 */
const declaredRoutes = [
  ...accessTable(GatewayApi, PlannedApi),
  ...Subsystems.flatMap((s) => s.routes.flatMap((r) => r.access))
]
const wsHandlers: ReadonlyArray<WsDispatch.WsHandlerGroup<WsGroupServices<WsRow>>> = Subsystems.flatMap(
  (s): ReadonlyArray<WsDispatch.WsHandlerGroup<WsGroupServices<WsRow>>> => s.ws as ReadonlyArray<WsDispatch.WsHandlerGroup<WsGroupServices<WsRow>>>
)

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
  return StorageLive({
    databaseUrl: settings.databaseUrl,
    sqlitePath: join(settings.home, "gateway.db"),
    sqliteSynchronous: settings.sqliteSynchronous
  })
})).pipe(Layer.provide(NodeServices.layer))

/** Every subsystem's migrations (the owners of its declared tables), in the order of {@link Subsystems}. */
const subsystemMigrations: ReadonlyArray<MigrationSet> = Subsystems.flatMap((s) =>
  s.tables.flatMap((t) => (t.owner === undefined ? [] : [t.owner]))
)

/**
 * Every subsystem's pending migrations in one transaction, before any
 * subsystem is built (layers/storage/migrations.ts `migrateAll`): the
 * repositories' own `migrate` calls are then no-ops.
 */
const MigrationsLive = Layer.effectDiscard(migrateAll(subsystemMigrations))

/**
 * Every domain service of {@link Subsystems}. `options.storage` replaces the
 * database (any layer providing a `SqlClient` and `DatabaseInfo`); every
 * subsystem's tables are migrated first, in one transaction. Needs {@link GatewayConfig}.
 */
export const gatewayServices = <E = never>(
  options?: { readonly storage?: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E> }
) => {
  const storage: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E | Layer.Error<typeof StorageFromSettings>, GatewayConfig> =
    options?.storage ?? StorageFromSettings
  // DomainEvents with the audit chain subscribed, built before any subsystem publishes (one instance: layers are memoized);
  // the snapshot set derived from the subsystems' tables (src/app/tables.ts); every subsystem's migrations in one
  // transaction before any subsystem is built.
  // SVC_ROLE=edge starts no background job (services/cluster/roles.ts).
  return subsystemLayers.pipe(
    Layer.provide(RoleJobs),
    Layer.provide(SnapshotTableSet.layer(GatewayTableSet)),
    Layer.provideMerge(AuditLog.layer),
    Layer.provideMerge(MigrationsLive),
    Layer.provideMerge(storage),
    Layer.provideMerge(ObservabilityLive)
  )
}

/**
 * The metrics and tracing switches of the settings (services/diagnostics/observability.ts),
 * beneath every subsystem and transport; HTTP spans are named by the
 * declared route templates.
 */
export const ObservabilityLive = observabilityFromSettings(
  makeRouteMatcher(declaredRoutes, (entry) => entry.path)
)

/** Every domain service, on the storage the settings ask for. Needs {@link GatewayConfig}. */
export const GatewayServicesLive = gatewayServices()

/** WS request dispatch: every declared type, with the handlers of every subsystem. */
export const WsDispatchLive = WsDispatch.layer({ handled: WsMessages, planned: PlannedWsMessages }, wsHandlers)

/**
 * All HTTP routes of {@link GatewayApi}, served by Effect's `HttpApiBuilder`
 * (the handler group of every row, the `Authentication` and `RequestErrors`
 * middleware of the declaration), plus the global middleware, for an
 * `HttpRouter` (compose with your own routes). Authorization covers the
 * declared routes and the spec's planned ones; anything else is forbidden to
 * device tokens. The groups a setting switches off answer 404 after
 * authorization. The subsystems' routes outside `GatewayApi` (`/mcp`) are
 * added to the same router and authenticated by the global middleware with
 * their declared access.
 */
export const GatewayHttpRoutes = Layer.mergeAll(
  HttpApiBuilder.layer(GatewayApi).pipe(
    Layer.provide(httpHandlers),
    Layer.provide(AuthenticationLive),
    Layer.provide(RequestErrorsLive),
    Layer.provide(NodeHttpServer.layerHttpServices),
    Layer.provide(WildcardBasesRouter)
  ),
  routerRoutesLayer,
  gatewayMiddleware({
    routes: declaredRoutes,
    served: new Set(Object.keys(GatewayApi.groups)),
    switches: Subsystems.flatMap((s) => s.switches)
  })
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

/**
 * The lean adapter reads the body of the requests that authentication cannot
 * refuse (the admin bearer token, or auth off; small declared bodies) before
 * running the app, which then completes without suspending
 * (src/http/authentication.ts `authenticatedFromHeaders`).
 */
const ReadBodyFirstLive = Layer.effect(LeanNodeHttpServer.ReadBodyFirst)(
  Effect.gen(function*() {
    const auth = yield* AuthService
    const settings = yield* GatewayConfig
    return authenticatedFromHeaders(auth, settings.maxBodyBytes)
  })
)

/**
 * Which Effect `HttpServer` serves HTTP on the gateway's `node:http` server:
 * - `"lean"` (the default): `layers/http/LeanNodeHttpServer.ts`, ≈ 10% less
 *   server CPU per request (docs/adapter-evidence.md);
 * - `"platform-node"`: `@effect/platform-node`'s `NodeHttpServer.layer`.
 *
 * Both pass the same HTTP and WS suites (`.ci/run` runs them on both), so
 * going back to the standard adapter is this one switch.
 */
export type HttpAdapter = "lean" | "platform-node"

/**
 * Serves {@link GatewayHttpRoutes} and the `/ws` upgrade on one `node:http`
 * server bound to the settings' `host:port`, through the chosen
 * {@link HttpAdapter}. `WsServerLive` owns the server's `upgrade` event.
 * Needs {@link GatewayConfig} and the services of {@link Subsystems}.
 */
export const gatewayHttp = (adapter: HttpAdapter = "lean") =>
  Layer.unwrap(Effect.map(GatewayConfig, (settings) => {
    const http = Layer.unwrap(Effect.map(NodeServer.NodeServer, ({ server }) => {
      const options = { host: settings.host, port: settings.port }
      const routes = HttpRouter.serve(GatewayHttpRoutes, { disableLogger: true, disableListenLog: true })
      return adapter === "lean"
        ? routes.pipe(Layer.provide(ReadBodyFirstLive), Layer.provideMerge(LeanNodeHttpServer.layer(() => server, options)))
        : routes.pipe(Layer.provideMerge(NodeHttpServer.layer(() => server, options)))
    }))
    // Built after the server, so released before it: the WS connections close (1001) and the drain starts
    // before the server stops listening and waits for in-flight requests. SVC_ROLE=worker serves no WebSocket
    // client: without the upgrade handler, an upgrade is an ordinary request (404, src/http/middleware.ts).
    const ws = servesClients(settings.role)
      ? WsServerLive.pipe(Layer.provide(WsDispatchLive), Layer.provide(WsConfig.layer))
      : Layer.empty
    return Layer.mergeAll(ws, NodeServer.NodeServerDrainLive).pipe(
      Layer.provideMerge(http),
      Layer.provideMerge(NodeServer.layerFromConfig)
    )
  }))

/** {@link gatewayHttp} on the default (lean) adapter: what `svc-gateway serve` runs. */
export const GatewayHttpLive = gatewayHttp("lean")

/**
 * The complete gateway from validated settings: HTTP and WS server, every
 * service, and logging (also for whatever is built on top of it, e.g. a
 * start log).
 */
export const GatewayLive = <E = never>(
  settings: GatewaySettings,
  options?: {
    readonly storage?: Layer.Layer<SqlClient.SqlClient | DatabaseInfo, E>
    /** Default `"lean"`. */
    readonly adapter?: HttpAdapter
  }
) =>
  Layer.unwrap(Effect.map(makeStartupGate, (startup) =>
    // The start-up gate opens once the server listens: the workflow runner starts then (services/backplane/StartupGate.ts).
    Layer.effectDiscard(Effect.gen(function*() {
      yield* HttpServer.HttpServer
      yield* startup.open
    })).pipe(
      Layer.provideMerge(gatewayHttp(options?.adapter)),
      Layer.provideMerge(gatewayServices(options)),
      Layer.provideMerge(LoggingLive),
      Layer.provideMerge(GatewayConfigLive(settings)),
      Layer.provideMerge(startup.gate)
    )))
