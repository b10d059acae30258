/**
 * `POST /policy/check` the idiomatic Effect 4 way, for bench/adapters.ts
 * (docs/adapter-evidence.md): one `HttpApi` with one group and one
 * `HttpApiEndpoint.post` (payload `PolicyCheckRequest`, success
 * `PolicyDecision`), an authentication `HttpApiMiddleware` with the
 * `HttpApiSecurity.bearer` scheme, served by `HttpApiBuilder.layer` +
 * `HttpRouter.serve`, on platform-node's `NodeHttpServer.layer`
 * (`HTTPAPI_ADAPTER=node`, the default) or our `LeanNodeHttpServer.layer`
 * (`HTTPAPI_ADAPTER=lean`).
 *
 * It does the same work as the plain baseline (bench/baseline-server.ts):
 * - the middleware compares the bearer token with the admin token in constant
 *   time (SHA-256 digests, `timingSafeEqual`) and answers 401 with the
 *   baseline's body `{"error":"unauthorized","message":"unauthorized"}`
 *   (declared as the middleware's error schema, status 401); on success it
 *   provides the principal (`CurrentCaller`, as the gateway provides `CurrentPrincipal`) and the
 *   1 MiB body limit (`MaxBodySize`);
 * - `HttpApiBuilder` reads the body, `JSON.parse`s it, decodes it with the
 *   `PolicyCheckRequest` schema (the Schema JIT is enabled, as in
 *   src/main.ts) and encodes the handler's `PolicyDecision`;
 * - the handler is `PolicyService.check` (the same `evaluatePolicy`).
 *
 * Differences from the gateway/baseline, none on the measured path: a 400
 * (malformed JSON, schema failure) is HttpApi's own empty 400; the 413 for an
 * over-limit body comes from the read failing (no check of a declared
 * `content-length` before reading); unknown routes are the router's 404.
 *
 * `HTTPAPI_HOST`, `HTTPAPI_PORT`, `HTTPAPI_TOKEN` (required), `HTTPAPI_ADAPTER`:
 * `node dist/bench/httpapi-server.js`.
 *
 * @module
 */
// Must come first, as in src/main.ts: schemas decode through Effect's JIT compiler.
import "effect/schema/SchemaJITCompiler/enable"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { ByteSize, Context, Effect, Layer, Redacted, References, Schema } from "effect"
import { HttpIncomingMessage, HttpRouter } from "effect/http"
import {
  HttpApi,
  HttpApiBuilder,
  HttpApiEndpoint,
  HttpApiGroup,
  HttpApiMiddleware,
  HttpApiSchema,
  HttpApiSecurity
} from "effect/http-api"
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import * as LeanNodeHttpServer from "../layers/http/LeanNodeHttpServer.ts"
import { adminPrincipal, type Principal } from "../services/auth/principal.ts"
import { PolicyService } from "../services/policy/PolicyService.ts"
import { PolicyCheckRequest, PolicyDecision } from "../src/contracts/index.ts"

const MAX_BODY_BYTES = 1_048_576

// ---------------------------------------------------------------------------
// Declaration (what a client and the OpenAPI document would share)
// ---------------------------------------------------------------------------

/** The 401 body, byte-identical to the plain baseline's. */
export const Unauthorized = Schema.Struct({
  error: Schema.Literal("unauthorized"),
  message: Schema.String
}).pipe(HttpApiSchema.status(401))

/** The authenticated caller, provided by {@link Authentication} (the gateway's `CurrentPrincipal`). */
export class CurrentCaller extends Context.Service<CurrentCaller, Principal>()("svc-gateway/bench/CurrentCaller") {}

/** Bearer authentication; provides the caller's principal to the endpoints. */
export class Authentication extends HttpApiMiddleware.Service<Authentication, {
  provides: CurrentCaller
}>()("svc-gateway/bench/Authentication", {
  security: { bearer: HttpApiSecurity.bearer },
  error: Unauthorized
}) {}

export class PolicyGroup extends HttpApiGroup.make("policy")
  .add(
    HttpApiEndpoint.post("check", "/policy/check", {
      payload: PolicyCheckRequest,
      success: PolicyDecision
    })
  )
  .middleware(Authentication)
{}

export class BenchApi extends HttpApi.make("svc-gateway-bench").add(PolicyGroup) {}

// ---------------------------------------------------------------------------
// Implementation
// ---------------------------------------------------------------------------

const digest = (value: string): Buffer => createHash("sha256").update(value, "utf8").digest()

/** The middleware: constant-time admin-token check, then the principal and the body limit for the endpoint. */
export const AuthenticationLive = (adminToken: string) => {
  const expected = digest(adminToken)
  const unauthorized = { error: "unauthorized", message: "unauthorized" } as const
  const maxBody = ByteSize.bytes(MAX_BODY_BYTES)
  return Layer.succeed(Authentication, Authentication.of({
    bearer: (httpEffect, { credential }) =>
      timingSafeEqual(expected, digest(Redacted.value(credential)))
        ? httpEffect.pipe(
          Effect.provideService(CurrentCaller, adminPrincipal),
          Effect.provideService(HttpIncomingMessage.MaxBodySize, maxBody)
        )
        : Effect.fail(unauthorized)
  }))
}

export const PolicyHandlers = HttpApiBuilder.group(BenchApi, "policy", (handlers) =>
  Effect.map(Effect.service(PolicyService), (policy) => handlers.handle("check", ({ payload }) => policy.check(payload))))

/** The API's routes with their handlers and middleware, for `HttpRouter.serve`. */
export const BenchApiRoutes = (adminToken: string) =>
  HttpApiBuilder.layer(BenchApi).pipe(
    Layer.provide(PolicyHandlers),
    Layer.provide(AuthenticationLive(adminToken)),
    Layer.provide(PolicyService.layer)
  )

const main = () => {
  const host = process.env.HTTPAPI_HOST ?? "127.0.0.1"
  const port = Number(process.env.HTTPAPI_PORT ?? "0")
  const token = process.env.HTTPAPI_TOKEN ?? ""
  const adapter = process.env.HTTPAPI_ADAPTER ?? "node"
  if (token.length === 0 || (adapter !== "node" && adapter !== "lean")) {
    console.error("httpapi-server: HTTPAPI_TOKEN is required; HTTPAPI_ADAPTER is node or lean")
    process.exit(2)
  }
  const server = adapter === "lean"
    ? LeanNodeHttpServer.layer(createServer, { host, port })
    : NodeHttpServer.layer(createServer, { host, port })
  // As the gateway: no per-request access log, errors only.
  const app = HttpRouter.serve(BenchApiRoutes(token), { disableLogger: true, disableListenLog: true }).pipe(
    Layer.provide(server),
    Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
  )
  NodeRuntime.runMain(Layer.launch(app))
}

main()
