/**
 * `svc-gateway serve`: runs the gateway until interrupted. Before anything
 * is opened it checks `SVC_HOME` (src/home.ts). Once the server is up it
 * logs where it listens, which database it uses and where the admin token is
 * (never the token), then one line saying which optional features are on;
 * after a SIGINT/SIGTERM drain, when everything is closed, its last line is
 * `svc-gateway stopped`. Loaded by the CLI only for this command, so other
 * commands (and `--help`) do not load the server graph.
 */
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { NodeServices } from "@effect/platform-node"
import {
  AuthConfig,
  DatabaseInfo,
  GATEWAY_VERSION,
  GatewayConfig,
  GatewayConfigLive,
  GatewayLive,
  type GatewaySettings,
  LoggingLive
} from "./app/gateway.ts"
import { Diagnostics } from "../services/diagnostics/Diagnostics.ts"
import type { StatusResponse } from "../services/diagnostics/schema.ts"
import { prepareHome } from "./home.ts"

/** A feature's state in the start log: `not available` means it is not built yet. */
export type FeatureState = "on" | "off" | "not available"

const onOff = (enabled: boolean): FeatureState => (enabled ? "on" : "off")

/** What decides a feature's state: the settings, and the features `GET /status` reports (what start-up found). */
export interface FeatureInputs {
  readonly settings: GatewaySettings
  readonly status: StatusResponse["features"]
}

/**
 * The optional features the start log reports, in this order (one row per
 * feature: its log annotation and how it is decided). CLI steps are on only
 * when enabled and a sandbox works (or `SVC_CLI_UNSANDBOXED=1`), as in
 * `GET /status` `features.cli`.
 */
export const OPTIONAL_FEATURES: ReadonlyArray<{ readonly name: string; readonly state: (inputs: FeatureInputs) => FeatureState }> = [
  { name: "engine_api", state: ({ settings }) => onOff(settings.engineApiEnabled) },
  { name: "cli_steps", state: ({ status }) => onOff(status.cli) },
  { name: "automation", state: ({ settings }) => onOff(settings.automationEnabled) },
  { name: "agent", state: ({ settings }) => onOff(settings.agentEnabled) },
  { name: "plugins", state: ({ settings }) => onOff(settings.pluginsEnabled) },
  { name: "snapshot_import", state: ({ settings }) => onOff(settings.snapshotImportEnabled) },
  { name: "metrics", state: ({ settings }) => onOff(settings.metricsEnabled) },
  { name: "tracing", state: ({ settings }) => onOff(settings.otlpEndpoint !== undefined) }
]

/** Logs the listening URL, database and admin-token location, then the optional features, once the server is up. */
const StartLog = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const db = yield* DatabaseInfo
  const auth = yield* AuthConfig
  const settings = yield* GatewayConfig
  const { features } = yield* (yield* Diagnostics).status
  const url = HttpServer.formatAddress(server.address)
  const adminToken = !auth.enabled
    ? "auth disabled (SVC_AUTH=off, loopback only)"
    : auth.adminTokenSource === "environment"
    ? "from SVC_ADMIN_TOKEN"
    : `${auth.adminTokenSource === "generated" ? "generated at" : "read from"} ${auth.adminTokenPath} (read it with: cat ${auth.adminTokenPath})`
  yield* Effect.logInfo("svc-gateway listening").pipe(Effect.annotateLogs({
    url,
    database_kind: db.kind,
    database: db.location,
    admin_token: adminToken,
    version: GATEWAY_VERSION
  }))
  yield* Effect.logInfo("optional features").pipe(
    Effect.annotateLogs(Object.fromEntries(OPTIONAL_FEATURES.map((f) => [f.name, f.state({ settings, status: features })])))
  )
}))

/**
 * Runs the gateway until interrupted; an interruption (a signal) ends with
 * the log line `svc-gateway stopped` once every layer is released. Fails
 * with `HomeNotWritable` before opening anything when `SVC_HOME` is unusable,
 * or with the failure of the layer that could not start.
 */
export const serve = (settings: GatewaySettings) =>
  prepareHome(settings).pipe(
    Effect.provide(NodeServices.layer),
    Effect.andThen(Layer.launch(StartLog.pipe(Layer.provideMerge(GatewayLive(settings))))),
    Effect.onInterrupt(() =>
      Effect.logInfo("svc-gateway stopped").pipe(Effect.provide(LoggingLive.pipe(Layer.provide(GatewayConfigLive(settings)))))
    )
  )
