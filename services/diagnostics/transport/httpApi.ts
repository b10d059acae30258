/**
 * Runtime diagnostics over HTTP (gateway-api.md "Runtime and diagnostics";
 * issue 14 §1; docs/operations.md): `GET /status`, `GET /metrics` and
 * `GET /usage`, operator.read. (`/connections` and `/presence` are the
 * `diagnostics` group; the JSON Schema catalog is its own group.)
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { StatusResponse, UsageQuery, UsageResponse } from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

/** The Prometheus text exposition (format 0.0.4). */
export const MetricsText = Schema.String.annotate({
  description: "Prometheus text exposition format 0.0.4: HELP and TYPE lines, then one line per series (docs/operations.md \"Metrics\")."
}).pipe(HttpApiSchema.asText({ contentType: "text/plain; version=0.0.4; charset=utf-8" }))

/** `GET /status`, `GET /metrics` (404 when `SVC_METRICS=off`), `GET /usage`. */
export const RuntimeApi = HttpApiGroup.make("runtime")
  .add(
    HttpApiEndpoint.get("status", "/status", { success: StatusResponse, error: AUTH_ERRORS }).annotateMerge(documented(
      "This process and the work queued in its database: version, instance id, role, database kind, uptime, WebSocket " +
        "connections, the policy bundle's sha256 and sources, queue depths, the features switched on, and `peers`: every " +
        "live instance of the cluster (this one included) with its role, version, connections and last heartbeat.",
      { response: { status: "ok", version: "0.1.0", role: "all", db_kind: "sqlite", features: { engine_api: true } } }
    )),
    HttpApiEndpoint.get("metrics", "/metrics", { success: MetricsText, error: [...AUTH_ERRORS, wire(NotFound)] }).annotateMerge(documented(
      "Prometheus text exposition 0.0.4: HTTP and WebSocket traffic, auth failures, approvals pending, workflow runs " +
        "and step durations, process figures and the workflow engine's cluster gauges, each family with HELP and TYPE " +
        "(docs/operations.md \"Metrics\"). 404 with `SVC_METRICS=off`.",
      { text: "…# TYPE http_requests_total counter…" }
    )),
    HttpApiEndpoint.get("usage", "/usage", { query: UsageQuery, success: UsageResponse, error: REQUEST_ERRORS }).annotateMerge(documented(
      "The cost reported by workflow step attempts (duration, tokens, USD micros), summed over one run (`run_id`), " +
        "key, agent (`agent_id`) or, without a query, the whole deployment. At most one of them.",
      { query: "agent_id=default", response: { status: "ok", scope: { kind: "agent", agent_id: "default" } } }
    ))
  )
  .annotate(Access, scope("operator.read"))
  .middleware(Authentication)
  .middleware(RequestErrors)
