/**
 * `svc-gateway serve`: runs the gateway until interrupted, with a start log
 * that says where it listens, which database it uses and where the admin
 * token is (never the token). Loaded by the CLI only for this command, so
 * other commands (and `--help`) do not load the server graph.
 */
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { AuthConfig, DatabaseInfo, GATEWAY_VERSION, GatewayLive } from "../layers/gateway.ts"
import type { GatewaySettings } from "../layers/config.ts"

/** Logs the listening URL, database and admin-token location once the server is up. */
const StartLog = Layer.effectDiscard(Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const db = yield* DatabaseInfo
  const auth = yield* AuthConfig
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
}))

/** Runs the gateway until interrupted. */
export const serve = (settings: GatewaySettings) => Layer.launch(StartLog.pipe(Layer.provideMerge(GatewayLive(settings))))
