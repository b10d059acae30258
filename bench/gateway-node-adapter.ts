/**
 * The gateway served through platform-node's `NodeHttpServer.layer` instead of
 * our `LeanNodeHttpServer.layer`, for bench/adapters.ts (docs/adapter-evidence.md).
 * Everything else is what `svc-gateway serve` runs: `GatewayLive` with
 * `adapter: "platform-node"` (routes, global middleware, `/ws` upgrade,
 * drain, SQLite in `$SVC_HOME`, logging, the Schema JIT), on the same
 * `NodeServer` http.Server. Only the HTTP adapter differs.
 *
 * `SVC_HOST`, `SVC_PORT`, `SVC_HOME` (required), `SVC_ADMIN_TOKEN` (required),
 * `SVC_LOG_LEVEL` (default `Error`):
 * `node dist/bench/gateway-node-adapter.js`.
 *
 * @module
 */
// Must come first, as in src/main.ts and the CLI bundle.
import "effect/schema/SchemaJITCompiler/enable"
import { NodeRuntime } from "@effect/platform-node"
import { Layer, type LogLevel } from "effect"
import { defaultSettings, GatewayLive, type GatewaySettings } from "../src/app/gateway.ts"

/** `GatewayLive` (src/app/gateway.ts) with platform-node's adapter. */
export const GatewayNodeAdapterLive = (settings: GatewaySettings) => GatewayLive(settings, { adapter: "platform-node" })

const main = () => {
  const home = process.env.SVC_HOME
  const adminToken = process.env.SVC_ADMIN_TOKEN
  if (home === undefined || adminToken === undefined) {
    console.error("gateway-node-adapter: SVC_HOME and SVC_ADMIN_TOKEN are required")
    process.exit(2)
  }
  const settings = defaultSettings({
    host: process.env.SVC_HOST ?? "127.0.0.1",
    port: Number(process.env.SVC_PORT ?? "0"),
    home,
    adminToken,
    logLevel: (process.env.SVC_LOG_LEVEL ?? "Error") as LogLevel.LogLevel
  })
  NodeRuntime.runMain(Layer.launch(GatewayNodeAdapterLive(settings)))
}

main()
