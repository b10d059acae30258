/**
 * Every metric the gateway exposes at `GET /metrics` (issue 14 §1;
 * docs/operations.md "Metrics"), defined once here with its help text, and
 * {@link GatewayMetrics}: the one recorder the transports and services call.
 *
 * The series live in Effect's `Metric` registry (the `Metric.MetricRegistry`
 * of the context the recorder was made in; by default the process-wide one)
 * and are rendered by `effect/observability/PrometheusMetrics`; there is no
 * registry of our own. A labelled series is registered on its first update,
 * so it appears once its first event happened.
 *
 * Hot path: each label set is its own pre-built `Metric` (labels baked in at
 * creation, so Effect computes its series key once); a request costs a few
 * `Map` lookups and the updates, no allocation. Label values are bounded:
 * HTTP routes are declared templates (or `/*`), methods a fixed list, WS
 * message types the declared ones (callers map anything else to `unknown`),
 * and every label cache is capped ({@link MAX_SERIES_PER_METRIC}).
 *
 * @module
 */
import { Context, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"

/** Kind of a metric, as Prometheus names it. */
export type MetricKind = "counter" | "gauge" | "histogram"

/** One metric of the catalog: what docs/operations.md lists (a test keeps the two in step). */
export interface MetricDefinition {
  readonly name: string
  readonly kind: MetricKind
  readonly labels: ReadonlyArray<string>
  readonly help: string
}

/** Bucket upper bounds (seconds) of the HTTP duration histogram: Prometheus' default buckets. */
export const HTTP_DURATION_BUCKETS: ReadonlyArray<number> = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Bucket upper bounds (seconds) of the workflow step histogram: from 10 ms to the 15-minute ceiling of long steps. */
export const STEP_DURATION_BUCKETS: ReadonlyArray<number> = [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900]

/** The catalog, in the order docs/operations.md lists it. */
export const METRICS = {
  httpRequests: {
    name: "http_requests_total",
    kind: "counter",
    labels: ["method", "route", "status"],
    help: "HTTP requests answered, by method, route template (/* when no route matched) and status code."
  },
  httpDuration: {
    name: "http_request_duration_seconds",
    kind: "histogram",
    labels: ["method", "route"],
    help: "Time from receiving an HTTP request to its response being ready, in seconds, by method and route template."
  },
  wsConnections: {
    name: "ws_connections_active",
    kind: "gauge",
    labels: ["role"],
    help: "WebSocket connections of this instance that completed the handshake, by peer role (client, node)."
  },
  wsMessages: {
    name: "ws_messages_total",
    kind: "counter",
    labels: ["type", "direction"],
    help: "WebSocket messages by envelope type (request, response or event type; unknown for undeclared types) and direction (in, out)."
  },
  authFailures: {
    name: "auth_failures_total",
    kind: "counter",
    labels: ["reason"],
    help: "Refused HTTP requests and WebSocket upgrades by reason: missing_token, invalid_token, rate_limited, forbidden, cross_origin."
  },
  approvalsPending: {
    name: "approvals_pending",
    kind: "gauge",
    labels: [],
    help: "Approvals waiting for a decision (status pending), read from the database when scraped."
  },
  workflowRuns: {
    name: "workflow_runs_total",
    kind: "counter",
    labels: ["status"],
    help: "Workflow runs that entered a status: queued (new or re-queued), succeeded, failed or cancelled."
  },
  workflowStepDuration: {
    name: "workflow_step_duration_seconds",
    kind: "histogram",
    labels: ["status"],
    help: "Duration of finished workflow step attempts in seconds, by attempt status (succeeded, failed, timed_out, cancelled)."
  },
  residentMemory: {
    name: "process_resident_memory_bytes",
    kind: "gauge",
    labels: [],
    help: "Resident set size of the gateway process in bytes, sampled when scraped."
  },
  heapUsed: {
    name: "process_heap_used_bytes",
    kind: "gauge",
    labels: [],
    help: "JavaScript heap in use in bytes, sampled when scraped."
  },
  eventLoopLag: {
    name: "nodejs_eventloop_lag_seconds",
    kind: "gauge",
    labels: [],
    help: "Mean event-loop delay in seconds since the previous scrape (Node's monitorEventLoopDelay; absent where unavailable)."
  }
} as const satisfies Record<string, MetricDefinition>

/** Why a request or upgrade was refused (`auth_failures_total{reason}`). */
export type AuthFailureReason = "missing_token" | "invalid_token" | "rate_limited" | "forbidden" | "cross_origin"

/** Direction of a WebSocket message. */
export type WsDirection = "in" | "out"

/** The label of an undeclared WebSocket message type. */
export const UNKNOWN_TYPE = "unknown"

/** Most label sets kept per metric; further new ones are folded into a catch-all (never expected in practice). */
export const MAX_SERIES_PER_METRIC = 1024

/** HTTP methods kept as labels; any other is counted as `OTHER`. */
const HTTP_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])

/** The series of one route template: request counts by method and status, durations by method. */
export interface HttpRouteSeries {
  /** Counts one answered request and its duration in seconds. */
  readonly record: (method: string, status: number, seconds: number) => void
}

/** Samples taken when `/metrics` is scraped. */
export interface ScrapeSample {
  readonly approvalsPending: number
  readonly residentMemoryBytes?: number | undefined
  readonly heapUsedBytes?: number | undefined
  readonly eventLoopLagSeconds?: number | undefined
}

/** The recorder every transport and service calls; a no-op when metrics are off. */
export interface MetricsRecorder {
  /** False when metrics are off (`SVC_METRICS=off`): every method does nothing and `/metrics` answers 404. */
  readonly enabled: boolean
  /** The context whose `Metric.MetricRegistry` holds the series (for rendering). */
  readonly context: Context.Context<never>
  /** The series of route template `route` (`/*` for unmatched requests); build once per route, at start. */
  readonly httpRoute: (route: string) => HttpRouteSeries
  readonly authFailure: (reason: AuthFailureReason) => void
  /** A connection of `role` completed the handshake (+1) or closed (-1). */
  readonly wsConnection: (role: "client" | "node", delta: 1 | -1) => void
  /** `count` messages of `type` (already bounded by the caller) went `direction`. */
  readonly wsMessage: (type: string, direction: WsDirection, count?: number) => void
  /** A workflow run entered `status`. */
  readonly workflowRun: (status: string) => void
  /** A step attempt finished with `status` after `seconds`. */
  readonly workflowStep: (status: string, seconds: number) => void
  /** Sets the gauges sampled at scrape time. */
  readonly sample: (sample: ScrapeSample) => void
}

const options = (definition: MetricDefinition, attributes?: Record<string, string>) => ({
  description: definition.help,
  ...(attributes === undefined ? {} : { attributes })
})

/** A lazily filled, capped cache of one metric's label sets. */
const labelled = <K, M>(make: (key: K) => M, overflow: () => M) => {
  const cache = new Map<K, M>()
  let spill: M | undefined
  return (key: K): M => {
    let metric = cache.get(key)
    if (metric === undefined) {
      if (cache.size >= MAX_SERIES_PER_METRIC) return spill ??= overflow()
      metric = make(key)
      cache.set(key, metric)
    }
    return metric
  }
}

/**
 * The recorder over the `Metric.MetricRegistry` of `context` (the default,
 * process-wide registry for `Context.empty()`).
 */
export const makeRecorder = (context: Context.Context<never>): MetricsRecorder => {
  const D = METRICS
  const httpRoute = (route: string): HttpRouteSeries => {
    const makeMethod = (method: string) => {
      const duration = Metric.histogram(D.httpDuration.name, {
        ...options(D.httpDuration, { method, route }),
        boundaries: HTTP_DURATION_BUCKETS
      })
      const byStatus = labelled(
        (status: number) => Metric.counter(D.httpRequests.name, options(D.httpRequests, { method, route, status: String(status) })),
        () => Metric.counter(D.httpRequests.name, options(D.httpRequests, { method, route, status: "other" }))
      )
      return { duration, byStatus }
    }
    const byMethod = labelled(makeMethod, () => makeMethod("OTHER"))
    return {
      record: (method, status, seconds) => {
        const series = byMethod(HTTP_METHODS.has(method) ? method : "OTHER")
        series.byStatus(status).updateUnsafe(1, context)
        series.duration.updateUnsafe(seconds, context)
      }
    }
  }
  const authFailures = labelled(
    (reason: string) => Metric.counter(D.authFailures.name, options(D.authFailures, { reason })),
    () => Metric.counter(D.authFailures.name, options(D.authFailures, { reason: "other" }))
  )
  const wsConnections = {
    client: Metric.gauge(D.wsConnections.name, options(D.wsConnections, { role: "client" })),
    node: Metric.gauge(D.wsConnections.name, options(D.wsConnections, { role: "node" }))
  }
  const wsMessages = {
    in: labelled(
      (type: string) => Metric.counter(D.wsMessages.name, options(D.wsMessages, { type, direction: "in" })),
      () => Metric.counter(D.wsMessages.name, options(D.wsMessages, { type: UNKNOWN_TYPE, direction: "in" }))
    ),
    out: labelled(
      (type: string) => Metric.counter(D.wsMessages.name, options(D.wsMessages, { type, direction: "out" })),
      () => Metric.counter(D.wsMessages.name, options(D.wsMessages, { type: UNKNOWN_TYPE, direction: "out" }))
    )
  }
  const workflowRuns = labelled(
    (status: string) => Metric.counter(D.workflowRuns.name, options(D.workflowRuns, { status })),
    () => Metric.counter(D.workflowRuns.name, options(D.workflowRuns, { status: "other" }))
  )
  const stepDurations = labelled(
    (status: string) =>
      Metric.histogram(D.workflowStepDuration.name, { ...options(D.workflowStepDuration, { status }), boundaries: STEP_DURATION_BUCKETS }),
    () =>
      Metric.histogram(D.workflowStepDuration.name, {
        ...options(D.workflowStepDuration, { status: "other" }),
        boundaries: STEP_DURATION_BUCKETS
      })
  )
  const approvalsPending = Metric.gauge(D.approvalsPending.name, options(D.approvalsPending))
  const residentMemory = Metric.gauge(D.residentMemory.name, options(D.residentMemory))
  const heapUsed = Metric.gauge(D.heapUsed.name, options(D.heapUsed))
  const eventLoopLag = Metric.gauge(D.eventLoopLag.name, options(D.eventLoopLag))

  return {
    enabled: true,
    context,
    httpRoute,
    authFailure: (reason) => authFailures(reason).updateUnsafe(1, context),
    wsConnection: (role, delta) => wsConnections[role].modifyUnsafe(delta, context),
    wsMessage: (type, direction, count = 1) => wsMessages[direction](type).updateUnsafe(count, context),
    workflowRun: (status) => workflowRuns(status).updateUnsafe(1, context),
    workflowStep: (status, seconds) => stepDurations(status).updateUnsafe(seconds, context),
    sample: (sample) => {
      approvalsPending.updateUnsafe(sample.approvalsPending, context)
      if (sample.residentMemoryBytes !== undefined) residentMemory.updateUnsafe(sample.residentMemoryBytes, context)
      if (sample.heapUsedBytes !== undefined) heapUsed.updateUnsafe(sample.heapUsedBytes, context)
      if (sample.eventLoopLagSeconds !== undefined) eventLoopLag.updateUnsafe(sample.eventLoopLagSeconds, context)
    }
  }
}

const noop = () => {}
const noopRoute: HttpRouteSeries = { record: noop }

/** The recorder when metrics are off: records nothing, allocates nothing. */
export const disabledRecorder: MetricsRecorder = {
  enabled: false,
  context: Context.empty(),
  httpRoute: () => noopRoute,
  authFailure: noop,
  wsConnection: noop,
  wsMessage: noop,
  workflowRun: noop,
  workflowStep: noop,
  sample: noop
}

/**
 * The gateway's metrics recorder, as a context reference: read it once when
 * a layer is built (`yield* GatewayMetrics`). Its default records into the
 * process-wide `Metric` registry; the gateway provides
 * {@link disabledRecorder} when `SVC_METRICS=off` (src/app/gateway.ts).
 */
export const GatewayMetrics = Context.Reference<MetricsRecorder>("svc-gateway/diagnostics/GatewayMetrics", {
  defaultValue: () => makeRecorder(Context.empty())
})

/**
 * HELP text of the families other Effect modules register without a
 * description: `effect/cluster`'s runner gauges (`ClusterMetrics`), which the
 * workflow engine's `SingleRunner` registers. Worded from their docstrings.
 */
export const LIBRARY_METRIC_HELP: Readonly<Record<string, string>> = {
  effect_cluster_entities: "Entities resident on this runner, by entity type (effect/cluster; the workflow engine's runner).",
  effect_cluster_entity_mailbox_size: "Requests admitted to each resident entity's mailbox, queued or in flight (effect/cluster).",
  effect_cluster_entity_mailbox_size_max: "Largest mailbox size among the resident entities of each type (effect/cluster).",
  effect_cluster_singletons: "Singleton processes running on this runner (effect/cluster).",
  effect_cluster_runners: "Cluster runners registered (effect/cluster; one for the gateway's single runner).",
  effect_cluster_runners_healthy: "Cluster runners currently considered healthy (effect/cluster).",
  effect_cluster_shards: "Shards acquired by this runner (effect/cluster).",
  effect_cluster_shards_releasing: "Shards this runner is still releasing (effect/cluster); positive while shards move."
}

const TYPE_LINE = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) /

/**
 * `text` (Prometheus exposition 0.0.4) with a `# HELP` line before every
 * `# TYPE` line that has none: {@link LIBRARY_METRIC_HELP} for the known
 * library families, else a generic sentence naming the family. The
 * exposition format makes HELP optional, but `promtool check metrics` (and
 * the gateway's own contract, docs/operations.md "Metrics") want one per family.
 */
export const withHelpLines = (text: string): string => {
  const lines = text.split("\n")
  const out: Array<string> = []
  for (const line of lines) {
    const match = TYPE_LINE.exec(line)
    if (match !== null && !(out.at(-1) ?? "").startsWith(`# HELP ${match[1]} `)) {
      const name = match[1]!
      out.push(`# HELP ${name} ${LIBRARY_METRIC_HELP[name] ?? `${name}: registered by a library without a description.`}`)
    }
    out.push(line)
  }
  return out.join("\n")
}

/** The `GET /metrics` body: every series of `recorder`'s registry, each family with HELP and TYPE. */
export const renderPrometheus = (recorder: MetricsRecorder): string =>
  withHelpLines(PrometheusMetrics.formatUnsafe(recorder.context))
