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
import { Config, Effect, Layer, Schema } from "effect"
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
 * Headers sent with every export (e.g. a collector's credentials), from the
 * OpenTelemetry variables `OTEL_EXPORTER_OTLP_TRACES_HEADERS`, else
 * `OTEL_EXPORTER_OTLP_HEADERS`: `key=value` pairs separated by commas,
 * values URI-encoded (`authorization=Bearer%20abc`). Never logged.
 */
export const otlpHeaders = Config.Record(Schema.String, Schema.StringFromUriComponent, "OTEL_EXPORTER_OTLP_TRACES_HEADERS").pipe(
  Config.orElse(() => Config.Record(Schema.String, Schema.StringFromUriComponent, "OTEL_EXPORTER_OTLP_HEADERS")),
  Config.withDefault(undefined)
)

/**
 * Exports spans to the OTLP/HTTP collector at `endpoint` (a base URL, e.g.
 * `http://127.0.0.1:4318`), with {@link otlpHeaders}, every `exportInterval`
 * (default 5 s) and when the layer is released (the gateway stops). Bad
 * header variables stop the start (a defect naming the variable).
 */
export const otlpTracing = (endpoint: string, options?: { readonly exportIntervalMs?: number | undefined }) =>
  Layer.unwrap(Effect.gen(function*() {
    const headers = yield* Effect.orDie(Effect.gen(function*() {
      return yield* otlpHeaders
    }))
    return OtlpTracer.layer({
      url: tracesUrl(endpoint),
      resource: { serviceName: SERVICE_NAME, serviceVersion: GATEWAY_VERSION },
      ...(headers === undefined ? {} : { headers }),
      ...(options?.exportIntervalMs === undefined ? {} : { exportInterval: options.exportIntervalMs })
    })
  })).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))

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
