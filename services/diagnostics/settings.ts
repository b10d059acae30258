/**
 * Diagnostics' settings (issue 21 §1; layers/settings.ts): metrics, span
 * export and which workflow `Http` targets receive trace headers
 * (docs/operations.md "Metrics", "Tracing").
 */
import { Option, Result } from "effect"
import { optionalTextValue, Setting } from "../../layers/settings.ts"

/**
 * `SVC_TRACE_PROPAGATION_TARGETS`: comma-separated URL patterns (globs over
 * `protocol//host[:port]/path`, e.g. `https://api.internal.example/*`);
 * blank entries are ignored. Each must start with `http://`, `https://` or
 * `*` and be at most 1024 characters; otherwise the problem, naming the
 * setting.
 */
export const parseTracePropagationTargets = (text: string): ReadonlyArray<string> | string => {
  const patterns = text.split(",").map((p) => p.trim()).filter((p) => p.length > 0)
  const bad = patterns.find((p) => p.length > 1024 || !/^(https?:\/\/|\*)/i.test(p))
  return bad === undefined
    ? patterns
    : `SVC_TRACE_PROPAGATION_TARGETS / --trace-propagation-targets: each entry must be a URL pattern starting with http://, https:// or * (at most 1024 characters; * matches any characters), such as https://api.example.com/*, got ${JSON.stringify(bad.slice(0, 80))}`
}

/**
 * `SVC_METRICS` (`on`/`off`, read as `metricsEnabled`), `OTEL_EXPORTER_OTLP_ENDPOINT` (an http(s) URL or
 * `undefined`: no tracing) and `SVC_TRACE_PROPAGATION_TARGETS` (the patterns; empty: none).
 */
export const DiagnosticsSettings = Setting.group("diagnostics", {
  metrics: Setting.named(
    "metricsEnabled",
    Setting.toggle({
      env: "SVC_METRICS",
      flag: "metrics",
      values: ["on", "off"],
      on: "on",
      default: "on",
      summary: "Record metrics and serve GET /metrics (SVC_METRICS); off: nothing is recorded and /metrics answers 404",
      doc: "`off` records no metrics and `GET /metrics` answers 404 (`docs/operations.md` \"Metrics\")."
    })
  ),
  otlpEndpoint: Setting.optionalText({
    env: "OTEL_EXPORTER_OTLP_ENDPOINT",
    flag: "otlp-endpoint",
    unset: "unset: no tracing",
    summary: "OTLP/HTTP collector base URL; spans are exported to <url>/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT)",
    doc: "An OTLP/HTTP collector's base URL: spans are exported to `<url>/v1/traces` (`docs/operations.md` \"Tracing\"). Unset: no tracing.",
    resolve: (raw) => {
      const url = optionalTextValue(raw)
      if (url !== undefined && !/^https?:\/\//i.test(url)) {
        return Result.fail("OTEL_EXPORTER_OTLP_ENDPOINT / --otlp-endpoint must be an http:// or https:// URL (the collector's OTLP/HTTP base URL)")
      }
      if (url !== undefined && !URL.canParse(url)) return Result.fail("OTEL_EXPORTER_OTLP_ENDPOINT / --otlp-endpoint is not a valid URL")
      return Result.succeed(url)
    }
  }),
  tracePropagationTargets: Setting.optionalText<ReadonlyArray<string>>({
    env: "SVC_TRACE_PROPAGATION_TARGETS",
    flag: "trace-propagation-targets",
    unset: "unset: none",
    summary:
      "Comma-separated URL patterns of workflow Http targets that receive trace headers (traceparent, b3), e.g. https://api.internal.example/* (SVC_TRACE_PROPAGATION_TARGETS)",
    doc:
      "Comma-separated URL patterns (like `network_egress` rules) of the workflow `Http` targets that receive trace headers (`traceparent`, `b3`); others get none (`docs/operations.md` \"Tracing\").",
    resolve: (raw) => {
      const targets = parseTracePropagationTargets(Option.getOrElse(raw, () => ""))
      return typeof targets === "string" ? Result.fail(targets) : Result.succeed(targets)
    },
    fromValue: (targets) => Option.some(targets.join(","))
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the diagnostics subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly diagnostics: typeof DiagnosticsSettings.settings
  }
}
