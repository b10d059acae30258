/**
 * The metrics catalog and recorder (services/metrics/GatewayMetrics.ts) on an
 * isolated registry: series appear on their first event, label sets are
 * pre-built per route and bounded, the no-op recorder records nothing; and
 * docs/operations.md lists every metric with its type, labels and help
 * text exactly as defined. Plus the tracing URL and the settings that
 * switch metrics and tracing.
 */
import { describe, expect, it } from "vitest"
import { Context, Metric, Option } from "effect"
import { PrometheusMetrics } from "effect/observability"
import { readFileSync } from "node:fs"
import { DEFAULTS, validateSettings } from "../../../src/app/settings.ts"
import { disabledRecorder, makeRecorder, MAX_SERIES_PER_METRIC, METRICS } from "../../../services/metrics/GatewayMetrics.ts"
import { tracesUrl } from "../../../services/diagnostics/tracing.ts"
import { parseExposition } from "../../support/prometheus.ts"

const isolated = () => {
  const context = Context.make(Metric.MetricRegistry, new Map())
  return { context, recorder: makeRecorder(context), scrape: () => parseExposition(PrometheusMetrics.formatUnsafe(context)) }
}

describe("the metrics recorder", () => {
  it("registers a series on its first event only", () => {
    const { recorder, scrape } = isolated()
    recorder.httpRoute("/approvals/:id")
    expect(scrape().samples).toEqual([])
    recorder.workflowRun("queued")
    const exposition = scrape()
    expect(exposition.samples).toEqual([{ name: "workflow_runs_total", labels: { status: "queued" }, value: 1 }])
    expect(exposition.help.get("workflow_runs_total")).toBe(METRICS.workflowRuns.help)
  })

  it("records requests per route template, method and status, with durations", () => {
    const { recorder, scrape } = isolated()
    const route = recorder.httpRoute("/workflow/runs/:run_id")
    route.record("GET", 200, 0.003)
    route.record("GET", 200, 0.2)
    route.record("GET", 404, 0.001)
    route.record("BREW", 200, 0.001)
    const exposition = scrape()
    expect(exposition.value("http_requests_total", { method: "GET", route: "/workflow/runs/:run_id", status: "200" })).toBe(2)
    expect(exposition.value("http_requests_total", { method: "GET", route: "/workflow/runs/:run_id", status: "404" })).toBe(1)
    expect(exposition.value("http_requests_total", { method: "OTHER", route: "/workflow/runs/:run_id", status: "200" })).toBe(1)
    expect(exposition.value("http_request_duration_seconds_bucket", { method: "GET", route: "/workflow/runs/:run_id", le: "0.005" })).toBe(2)
    expect(exposition.value("http_request_duration_seconds_bucket", { method: "GET", route: "/workflow/runs/:run_id", le: "0.25" })).toBe(3)
    expect(exposition.value("http_request_duration_seconds_count", { method: "GET", route: "/workflow/runs/:run_id" })).toBe(3)
    expect(exposition.value("http_request_duration_seconds_sum", { method: "GET", route: "/workflow/runs/:run_id" })).toBeCloseTo(0.204)
  })

  it("folds label sets beyond the cap into one series", () => {
    const { recorder, scrape } = isolated()
    for (let i = 0; i < MAX_SERIES_PER_METRIC + 5; i++) recorder.wsMessage(`type-${i}`, "in")
    const series = scrape().find("ws_messages_total", { direction: "in" })
    expect(series).toHaveLength(MAX_SERIES_PER_METRIC + 1)
    expect(series.find((s) => s.labels.type === "unknown")?.value).toBe(5)
  })

  it("keeps gauges: connections up and down, scrape-time samples", () => {
    const { recorder, scrape } = isolated()
    recorder.wsConnection("node", 1)
    recorder.wsConnection("node", 1)
    recorder.wsConnection("node", -1)
    recorder.sample({ approvalsPending: 3, residentMemoryBytes: 1000, heapUsedBytes: 10 })
    const exposition = scrape()
    expect(exposition.value("ws_connections_active", { role: "node" })).toBe(1)
    expect(exposition.find("ws_connections_active", { role: "client" })).toEqual([])
    expect(exposition.value("approvals_pending")).toBe(3)
    expect(exposition.value("process_resident_memory_bytes")).toBe(1000)
    expect(exposition.find("nodejs_eventloop_lag_seconds")).toEqual([])
  })

  it("records nothing when disabled", () => {
    const context = Context.make(Metric.MetricRegistry, new Map())
    disabledRecorder.httpRoute("/status").record("GET", 200, 1)
    disabledRecorder.authFailure("invalid_token")
    disabledRecorder.wsMessage("ping", "in")
    disabledRecorder.workflowStep("succeeded", 1)
    expect(disabledRecorder.enabled).toBe(false)
    expect(PrometheusMetrics.formatUnsafe(context)).toBe("")
    expect(PrometheusMetrics.formatUnsafe(disabledRecorder.context)).not.toContain("/status")
  })
})

describe("docs/operations.md \"Metrics\"", () => {
  const docs = readFileSync(new URL("../../../docs/operations.md", import.meta.url), "utf8")

  it.each(Object.values(METRICS).map((m) => [m.name, m] as const))("lists %s with its type, labels and help text", (_name, metric) => {
    const labels = metric.labels.map((l) => `\`${l}\``).join(", ")
    const row = `| \`${metric.name}\` | ${metric.kind} | ${labels} | ${metric.help} |`
    expect(docs.replace(/ {2,}/g, " ")).toContain(row.replace(/ {2,}/g, " "))
  })
})

describe("tracing and metrics settings", () => {
  const raw = { ...DEFAULTS, home: Option.none(), databaseUrl: Option.none(), adminToken: Option.none(), auth: "on" as const, logLevel: "Info" as const }

  it("derives the traces URL from the base endpoint", () => {
    expect(tracesUrl("http://127.0.0.1:4318")).toBe("http://127.0.0.1:4318/v1/traces")
    expect(tracesUrl("https://otel.example.com/prefix/")).toBe("https://otel.example.com/prefix/v1/traces")
  })

  it("defaults to metrics on and no tracing", () => {
    const result = validateSettings(raw)
    expect(result.ok && result.settings.metricsEnabled).toBe(true)
    expect(result.ok && result.settings.otlpEndpoint).toBe(undefined)
  })

  it("reads SVC_METRICS=off and an endpoint, and refuses a non-HTTP endpoint naming the setting", () => {
    const result = validateSettings({ ...raw, metrics: "off", otlpEndpoint: Option.some(" http://collector:4318 ") })
    expect(result.ok && result.settings.metricsEnabled).toBe(false)
    expect(result.ok && result.settings.otlpEndpoint).toBe("http://collector:4318")
    const bad = validateSettings({ ...raw, otlpEndpoint: Option.some("collector:4318") })
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.problems.join()).toContain("OTEL_EXPORTER_OTLP_ENDPOINT")
  })
})
