/**
 * OpenTelemetry tracing (issue 14 §1; docs/operations.md "Tracing"): when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set, Effect's tracer is replaced by
 * `effect/observability/OtlpTracer`, which batches finished spans and POSTs
 * them as OTLP/HTTP JSON to `<endpoint>/v1/traces` (service name
 * `svc-gateway`). Unset, no layer is added at all: Effect keeps its native
 * tracer, and the HTTP server skips span creation for requests.
 *
 * Spans: one per HTTP request (Effect's HTTP server, named
 * `<METHOD> <route template>` by {@link httpSpanNames}), one per WebSocket
 * request (src/ws/dispatch.ts), one per workflow activity (effect/workflow),
 * one per SQL statement (effect/sql), plus the `Effect.fn` spans of the
 * services.
 *
 * @module
 */
import { Layer } from "effect"
import { FetchHttpClient, HttpMiddleware, type HttpServerRequest } from "effect/http"
import { OtlpSerialization, OtlpTracer } from "effect/observability"
import { GATEWAY_VERSION } from "../../layers/config.ts"

/** The service name spans are exported under. */
export const SERVICE_NAME = "svc-gateway"

/** The OTLP/HTTP traces URL of a base endpoint (OpenTelemetry: `<endpoint>/v1/traces`). */
export const tracesUrl = (endpoint: string): string => {
  const url = new URL(endpoint)
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/v1/traces`
  return url.toString()
}

/**
 * Exports spans to the OTLP/HTTP collector at `endpoint` (a base URL, e.g.
 * `http://127.0.0.1:4318`), every `exportInterval` (default 5 s) and when the
 * layer is released (the gateway stops).
 */
export const otlpTracing = (endpoint: string, options?: { readonly exportIntervalMs?: number | undefined }) =>
  OtlpTracer.layer({
    url: tracesUrl(endpoint),
    resource: { serviceName: SERVICE_NAME, serviceVersion: GATEWAY_VERSION },
    ...(options?.exportIntervalMs === undefined ? {} : { exportInterval: options.exportIntervalMs })
  }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))

/**
 * Names HTTP server spans `<METHOD> <route template>` (OpenTelemetry's
 * convention; `/*` when no route matched), with `routeOf` mapping a method
 * and path to the declared template.
 */
export const httpSpanNames = (routeOf: (method: string, path: string) => string | undefined) =>
  Layer.succeed(HttpMiddleware.SpanNameGenerator)((request: HttpServerRequest.HttpServerRequest) => {
    const q = request.url.indexOf("?")
    const path = q === -1 ? request.url : request.url.slice(0, q)
    return `${request.method} ${routeOf(request.method, path) ?? "/*"}`
  })
