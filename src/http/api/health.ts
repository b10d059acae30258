/** `GET /healthz` (public; gateway-api.md "Public routes", reference §2.7). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Access, PUBLIC } from "./access.ts"

/** `{status: "ok", is_exposed}`: `is_exposed` is true when bound to a non-loopback address. */
export const HealthResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  is_exposed: Schema.Boolean.annotate({ description: "True when the gateway listens on a non-loopback address." })
}).annotate({ identifier: "HealthResponse" })

/** Liveness probe. */
export const HealthApi = HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("healthz", "/healthz", { success: HealthResponse }))
  .annotate(Access, PUBLIC)
