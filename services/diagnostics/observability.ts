/**
 * Metrics and tracing switches from the settings (docs/operations.md
 * "Metrics", "Tracing"), provided beneath every subsystem and transport
 * (src/app/gateway.ts `gatewayServices`, `ObservabilityLive`):
 *
 * - `SVC_METRICS=off` provides the no-op `GatewayMetrics` recorder (nothing
 *   is recorded, `/metrics` answers 404); on, the default recorder is used;
 * - `OTEL_EXPORTER_OTLP_ENDPOINT` set adds the OTLP tracer and names HTTP
 *   server spans `<METHOD> <route template>`; unset adds nothing.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { disabledRecorder, GatewayMetrics } from "../metrics/GatewayMetrics.ts"
import { httpSpanNames, otlpTracing } from "./tracing.ts"

/**
 * The observability layer for the settings; `routeOf` maps a request's
 * method and path to its declared route template (for span names).
 */
export const observabilityFromSettings = (routeOf: (method: string, path: string) => string | undefined) =>
  Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
    Layer.mergeAll(
      settings.metricsEnabled ? Layer.empty : Layer.succeed(GatewayMetrics, disabledRecorder),
      settings.otlpEndpoint === undefined ? Layer.empty : Layer.merge(otlpTracing(settings.otlpEndpoint), httpSpanNames(routeOf))
    )))
