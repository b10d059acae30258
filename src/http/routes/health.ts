/** `GET /healthz` (public): `{status:"ok", is_exposed}` (gateway-api.md "Public routes"; reference §2.7). */
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { GatewayConfig } from "../../config.ts"
import { json } from "../respond.ts"

/** Registers `GET /healthz`; `is_exposed` is true when bound to a non-loopback address. */
export const HealthRoutes = Layer.unwrap(Effect.gen(function*() {
  const settings = yield* GatewayConfig
  const body = { status: "ok", is_exposed: settings.isExposed }
  return HttpRouter.add("GET", "/healthz", Effect.sync(() => json(body)))
}))
