// A platform team's own Effect app with the gateway composed in: its own route
// (`GET /hello`) next to the gateway's routes on one node:http server, plus an
// in-process policy check (no HTTP). Run: `npm start` (see README.md).
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { HttpRouter, HttpServer, HttpServerResponse } from "effect/http"
import { createServer } from "node:http"
import { defaultSettings, GatewayConfigLive, GatewayHttpRoutes, GatewayServicesLive, PolicyService } from "svc-gateway"

// The gateway's defaults (127.0.0.1, SQLite in ~/.svc, auth on), overridden from our environment.
const settings = defaultSettings({
  port: Number(process.env.PORT ?? 8789),
  home: process.env.SVC_HOME,
  adminToken: process.env.SVC_ADMIN_TOKEN
})

// Our route. It sits behind the gateway's global middleware, so it needs a token like any non-public route.
const HelloRoute = HttpRouter.add("GET", "/hello", HttpServerResponse.text("hello from my app"))

// Our route + the gateway's routes on one router, served on our server, with the gateway's services.
const AppLive = HttpRouter.serve(Layer.mergeAll(HelloRoute, GatewayHttpRoutes)).pipe(
  Layer.provideMerge(NodeHttpServer.layer(createServer, { host: settings.host, port: settings.port })),
  Layer.provideMerge(GatewayServicesLive),
  Layer.provideMerge(GatewayConfigLive(settings))
)

const main = Effect.gen(function*() {
  // The planner's path: PolicyService in-process, the same service `POST /policy/check` uses.
  const policy = yield* PolicyService
  const decision = yield* policy.check({ spend: { amount_minor_units: 8750, currency: "EUR" } })
  const server = yield* HttpServer.HttpServer
  console.log(JSON.stringify({ listening: HttpServer.formatAddress(server.address), in_process_decision: decision }))
  return yield* Effect.never
})

NodeRuntime.runMain(main.pipe(Effect.provide(AppLive)))
