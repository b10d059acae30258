/** `GET /healthz` (public; gateway-api.md "Public routes", reference §2.7). */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { documented } from "../../http/api/examples.ts"
import { Access, PUBLIC } from "../../http/api/access.ts"
import { RequestErrors } from "../../http/api/security.ts"

/** `{status: "ok", is_exposed}`: `is_exposed` is true when bound to a non-loopback address. */
export const HealthResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  is_exposed: Schema.Boolean.annotate({ description: "True when the gateway listens on a non-loopback address." })
}).annotate({ identifier: "HealthResponse" })

/** Liveness probe. */
export const HealthApi = HttpApiGroup.make("health")
  .add(HttpApiEndpoint.get("healthz", "/healthz", { success: HealthResponse }).annotateMerge(documented(
    "Liveness probe: answers as soon as the gateway serves HTTP. `is_exposed` is true when it listens on a " +
      "non-loopback address (then the admin token must be at least 32 characters and `SVC_AUTH=off` is refused).",
    { response: { status: "ok", is_exposed: false } }
  )))
  .annotate(Access, PUBLIC)
  .middleware(RequestErrors)
