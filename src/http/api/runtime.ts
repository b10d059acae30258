/**
 * Runtime diagnostics over HTTP (gateway-api.md "Runtime and diagnostics";
 * issue 14 §1; docs/operations.md): `GET /status`, `GET /metrics` and
 * `GET /usage`, operator.read. (`/connections` and `/presence` are the
 * `diagnostics` group; the JSON Schema catalog is its own group.)
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { StatusResponse, UsageQuery, UsageResponse } from "../../../services/diagnostics/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, scope } from "./access.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "./errors.ts"

/** The Prometheus text exposition (format 0.0.4). */
export const MetricsText = Schema.String.annotate({
  description: "Prometheus text exposition format 0.0.4: HELP and TYPE lines, then one line per series (docs/operations.md \"Metrics\")."
}).pipe(HttpApiSchema.asText({ contentType: "text/plain; version=0.0.4; charset=utf-8" }))

/** `GET /status`, `GET /metrics` (404 when `SVC_METRICS=off`), `GET /usage`. */
export const RuntimeApi = HttpApiGroup.make("runtime")
  .add(
    HttpApiEndpoint.get("status", "/status", { success: StatusResponse, error: AUTH_ERRORS }),
    HttpApiEndpoint.get("metrics", "/metrics", { success: MetricsText, error: [...AUTH_ERRORS, wire(NotFound)] }),
    HttpApiEndpoint.get("usage", "/usage", { query: UsageQuery, success: UsageResponse, error: REQUEST_ERRORS })
  )
  .annotate(Access, scope("operator.read"))
