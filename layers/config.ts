/**
 * The validated settings of one gateway process (`GatewayConfig`), their
 * defaults and their cross-field rules. Settings enter the dependency graph
 * once, as `GatewayConfig` (layers/gateway.ts `GatewayConfigLive`); every
 * subsystem and transport reads what it needs from there. The CLI
 * (src/config.ts) turns flags and environment variables into these settings.
 *
 * | env                          | flag                    | default              |
 * |------------------------------|-------------------------|----------------------|
 * | SVC_HOST                     | --host                  | 127.0.0.1            |
 * | SVC_PORT                     | --port                  | 8788                 |
 * | SVC_HOME                     | --home                  | ~/.svc               |
 * | SVC_DATABASE_URL             | --database-url          | SQLite $SVC_HOME/gateway.db |
 * | SVC_ADMIN_TOKEN              | --admin-token           | $SVC_HOME/admin-token |
 * | SVC_AUTH                     | --auth                  | on                   |
 * | SVC_AUTH_RATE_LIMIT_MAX      | --auth-rate-limit-max   | 20                   |
 * | SVC_AUTH_RATE_LIMIT_WINDOW_S | --auth-rate-limit-window| 60 (seconds)         |
 * | SVC_MAX_BODY_BYTES           | --max-body-bytes        | 1048576              |
 * | SVC_LOG_LEVEL                | --log-level             | Info (any case)      |
 * | SVC_WS_HANDSHAKE_TIMEOUT_MS  | --ws-handshake-timeout-ms | 10000              |
 * | SVC_WS_PING_INTERVAL_MS      | --ws-ping-interval-ms   | 5000                 |
 * | SVC_WS_PONG_TIMEOUT_MS       | --ws-pong-timeout-ms    | 10000                |
 * | SVC_WS_MAX_MESSAGE_BYTES     | --ws-max-message-bytes  | 1048576              |
 * | SVC_HEADERS_TIMEOUT_MS       | --headers-timeout-ms    | 10000                |
 * | SVC_REQUEST_TIMEOUT_MS       | --request-timeout-ms    | 30000                |
 * | SVC_MAX_CONNECTIONS          | --max-connections       | 4096                 |
 * | SVC_APPROVAL_TTL_S           | --approval-ttl          | 86400 (seconds)      |
 * | SVC_POLICY_BUNDLE_PATH       | --policy-bundle-path    | built-in bundle      |
 * | SVC_OAUTH_PROVIDERS_CONFIG   | --oauth-providers-config | $SVC_HOME/oauth-providers.yml if present |
 * | SVC_AUTH_PROFILES            | --auth-profiles         | on                   |
 * | SVC_SECRET_PROVIDER          | --secret-provider       | db                   |
 * | SVC_SECRETS_MASTER_KEY_PATH  | --secrets-master-key-path | $SVC_HOME/secrets.master.key |
 * | SVC_ENGINE_API_ENABLED       | --engine-api            | 0 (1: the /workflow/* HTTP routes) |
 * | SVC_CLI_ENABLED              | --cli-steps             | 0 (1: CLI workflow steps run) |
 * | SVC_CLI_UNSANDBOXED          | --cli-unsandboxed       | 0 (1: CLI steps run even without a sandbox) |
 * | SVC_EXEC_CONCURRENCY         | --exec-concurrency      | 4 (workflow steps running at once) |
 * | SVC_AUTOMATION_ENABLED       | --automation            | 0 (1: watcher firings start runs) |
 * | SVC_SNAPSHOT_IMPORT_ENABLED  | --snapshot-import       | 0 (1: POST /snapshot/import) |
 * | SVC_METRICS                  | --metrics               | on (off: nothing recorded, /metrics 404) |
 * | OTEL_EXPORTER_OTLP_ENDPOINT  | --otlp-endpoint         | unset (no tracing) |
 * | SVC_TRACE_PROPAGATION_TARGETS | --trace-propagation-targets | none (Http steps send no trace headers) |
 */
import { Context, type LogLevel, Option, Redacted } from "effect"
import { homedir } from "node:os"
import { join } from "node:path"

/** The gateway's version (package.json), reported by presence and the start log. */
export const GATEWAY_VERSION = "0.1.0"

/**
 * The default of every setting with one (the CLI's flags and
 * {@link defaultSettings} both read it): times in milliseconds unless the
 * name says seconds, sizes in bytes.
 */
export const DEFAULTS = {
  host: "127.0.0.1",
  port: 8788,
  rateLimitMax: 20,
  rateLimitWindowSeconds: 60,
  maxBodyBytes: 1_048_576,
  logLevel: "Info",
  wsHandshakeTimeoutMs: 10_000,
  wsPingIntervalMs: 5_000,
  wsPongTimeoutMs: 10_000,
  wsMaxMessageBytes: 1_048_576,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  maxConnections: 4096,
  approvalTtlSeconds: 86_400,
  execConcurrency: 4
} as const

/** Fully validated settings of one gateway process. */
export interface GatewaySettings {
  readonly host: string
  readonly port: number
  /** State directory (admin token, SQLite database); created if missing. */
  readonly home: string
  /** `postgres://…` for PostgreSQL; `undefined` for the embedded SQLite file `$home/gateway.db`. */
  readonly databaseUrl: string | undefined
  /** Explicit admin token (never logged); `undefined` means use/generate `$home/admin-token`. */
  readonly adminToken: Redacted.Redacted<string> | undefined
  readonly authEnabled: boolean
  readonly rateLimitMax: number
  readonly rateLimitWindowSeconds: number
  readonly maxBodyBytes: number
  readonly logLevel: LogLevel.LogLevel
  /** WebSocket handshake timeout in milliseconds (close 4002). */
  readonly wsHandshakeTimeoutMs: number
  /** Interval of WebSocket ping frames in milliseconds. */
  readonly wsPingIntervalMs: number
  /** A peer silent for this many milliseconds is terminated. */
  readonly wsPongTimeoutMs: number
  /** Largest WebSocket message in bytes (close 1009 above). */
  readonly wsMaxMessageBytes: number
  /** Time to receive a request's headers, in milliseconds (408 after it). */
  readonly headersTimeoutMs: number
  /** Time to receive a whole request (headers and body), in milliseconds. */
  readonly requestTimeoutMs: number
  /** Most open connections (HTTP and WebSocket); more are dropped at accept. */
  readonly maxConnections: number
  /** Default lifetime of an approval in seconds (its creator may choose another); then it expires. */
  readonly approvalTtlSeconds: number
  /** Workflow steps running at once, across runs (`SVC_EXEC_CONCURRENCY`; paused runs hold none). */
  readonly execConcurrency: number
  /** Deployment policy bundle file (YAML or JSON); `undefined`: the built-in bundle (docs/policy-bundle.md). */
  readonly policyBundlePath: string | undefined
  /** OAuth providers file (YAML or JSON); `undefined`: `$home/oauth-providers.yml` if it exists (docs/provider-oauth.md). */
  readonly oauthProvidersConfig: string | undefined
  /** Auth profiles and session pins (`SVC_AUTH_PROFILES`, default on); off: their routes answer 404 (docs/auth-profiles.md). */
  readonly authProfilesEnabled: boolean
  /** The secret provider (`SVC_SECRET_PROVIDER`): `db` (encrypted in the database, the default) or `env` (docs/secrets.md). */
  readonly secretProvider: "db" | "env"
  /** The `db` provider's master key file; `undefined`: `$home/secrets.master.key` (docs/secrets.md). */
  readonly secretsMasterKeyPath: string | undefined
  /** The workflow engine's HTTP routes (`SVC_ENGINE_API_ENABLED=1`); off: they answer 404 (WebSocket `workflow.*` always work). */
  readonly engineApiEnabled: boolean
  /** `CLI` workflow steps run (`SVC_CLI_ENABLED=1`); off: they fail with `unsupported_action`. */
  readonly cliEnabled: boolean
  /**
   * `SVC_CLI_UNSANDBOXED=1`: when no sandbox works (bwrap, unshare), `CLI` steps run without one, able to read
   * the gateway's files and environment; off: they fail with `sandbox_unavailable` (docs/workflow-executors.md "Sandbox").
   */
  readonly cliUnsandboxed: boolean
  /** Watcher firings start their runs (`SVC_AUTOMATION_ENABLED=1`); off: firings are only recorded (docs/watchers.md). */
  readonly automationEnabled: boolean
  /** `POST /snapshot/import` imports (`SVC_SNAPSHOT_IMPORT_ENABLED=1`); off: it answers 403 `disabled` (docs/operations.md "Backup and restore"). */
  readonly snapshotImportEnabled: boolean
  /** Metrics are recorded and served at `GET /metrics` (`SVC_METRICS`, default on; docs/operations.md "Metrics"). */
  readonly metricsEnabled: boolean
  /** OTLP/HTTP base URL spans are exported to (`OTEL_EXPORTER_OTLP_ENDPOINT`); `undefined`: no tracing (docs/operations.md "Tracing"). */
  readonly otlpEndpoint: string | undefined
  /**
   * URL patterns of the workflow `Http` targets that receive trace headers
   * (`traceparent`, `b3`), matched like `network_egress` rules
   * (`SVC_TRACE_PROPAGATION_TARGETS`, comma-separated); empty: none (docs/operations.md "Tracing").
   */
  readonly tracePropagationTargets: ReadonlyArray<string>
  /** True when bound to a non-loopback address (`/healthz` `is_exposed`). */
  readonly isExposed: boolean
}

/** The settings of the running gateway, as a service (read by `/healthz`, the start log, …). */
export class GatewayConfig extends Context.Service<GatewayConfig, GatewaySettings>()("svc-gateway/GatewayConfig") {}

/** Settings before cross-field validation (flags and environment merged, defaults applied). */
export interface RawSettings {
  readonly host: string
  readonly port: number
  readonly home: Option.Option<string>
  readonly databaseUrl: Option.Option<string>
  readonly adminToken: Option.Option<Redacted.Redacted<string>>
  readonly auth: "on" | "off"
  readonly rateLimitMax: number
  readonly rateLimitWindowSeconds: number
  readonly maxBodyBytes: number
  readonly logLevel: GatewaySettings["logLevel"]
  readonly wsHandshakeTimeoutMs: number
  readonly wsPingIntervalMs: number
  readonly wsPongTimeoutMs: number
  readonly wsMaxMessageBytes: number
  readonly headersTimeoutMs: number
  readonly requestTimeoutMs: number
  readonly maxConnections: number
  readonly approvalTtlSeconds: number
  /** Workflow steps running at once, across runs (`SVC_EXEC_CONCURRENCY`; paused runs hold none). */
  readonly execConcurrency: number
  /** `SVC_POLICY_BUNDLE_PATH`; absent, none or blank: the built-in bundle. */
  readonly policyBundlePath?: Option.Option<string> | undefined
  /** `SVC_OAUTH_PROVIDERS_CONFIG`; absent, none or blank: `$SVC_HOME/oauth-providers.yml` if present. */
  readonly oauthProvidersConfig?: Option.Option<string> | undefined
  /** `SVC_AUTH_PROFILES`; absent: `on`. */
  readonly authProfiles?: "on" | "off" | undefined
  /** `SVC_SECRET_PROVIDER`; absent: `db`. */
  readonly secretProvider?: "db" | "env" | undefined
  /** `SVC_SECRETS_MASTER_KEY_PATH`; absent, none or blank: `$home/secrets.master.key`. */
  readonly secretsMasterKeyPath?: Option.Option<string> | undefined
  /** `SVC_ENGINE_API_ENABLED`; absent: `0`. */
  readonly engineApi?: "0" | "1" | undefined
  /** `SVC_CLI_ENABLED`; absent: `0`. */
  readonly cliSteps?: "0" | "1" | undefined
  /** `SVC_CLI_UNSANDBOXED`; absent: `0`. */
  readonly cliUnsandboxed?: "0" | "1" | undefined
  /** `SVC_AUTOMATION_ENABLED`; absent: `0`. */
  readonly automation?: "0" | "1" | undefined
  /** `SVC_SNAPSHOT_IMPORT_ENABLED`; absent: `0`. */
  readonly snapshotImport?: "0" | "1" | undefined
  /** `SVC_METRICS`; absent: `on`. */
  readonly metrics?: "on" | "off" | undefined
  /** `OTEL_EXPORTER_OTLP_ENDPOINT`; absent, none or blank: no tracing. */
  readonly otlpEndpoint?: Option.Option<string> | undefined
  /** `SVC_TRACE_PROPAGATION_TARGETS` (comma-separated URL patterns); absent, none or blank: no target. */
  readonly tracePropagationTargets?: Option.Option<string> | undefined
}

/** The state directory when `SVC_HOME` is not set: `~/.svc`. */
export const defaultHome = (): string => join(homedir(), ".svc")

/** Minimum admin-token length on a non-loopback bind (reference §2.1). */
export const MIN_EXPOSED_ADMIN_TOKEN_LENGTH = 32

/**
 * Loopback test (reference §2.7): `localhost`, any `127.x.y.z`, `::1` (brackets
 * allowed). `0.0.0.0` and `::` listen on every interface, so they are exposed.
 */
export const isLoopbackHost = (host: string): boolean => {
  const h = host.trim().toLowerCase().replace(/^\[|\]$/g, "")
  return h === "localhost" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h) || h === "::1" || h === "0:0:0:0:0:0:0:1"
}

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
 * Applies the cross-field rules. Returns the settings or every problem found
 * (each a full sentence naming the setting), so startup can print them all.
 */
export const validateSettings = (raw: RawSettings): { readonly ok: true; readonly settings: GatewaySettings } | {
  readonly ok: false
  readonly problems: ReadonlyArray<string>
} => {
  const problems: Array<string> = []
  const exposed = !isLoopbackHost(raw.host)
  if (raw.host.trim().length === 0) problems.push("SVC_HOST / --host must not be empty")
  if (!Number.isInteger(raw.port) || raw.port < 0 || raw.port > 65535) {
    problems.push(`SVC_PORT / --port must be an integer from 0 to 65535 (0 = any free port), got ${raw.port}`)
  }
  if (raw.auth === "off" && exposed) {
    problems.push(`SVC_AUTH=off is only allowed on a loopback bind, but the host is ${raw.host}; bind to 127.0.0.1 or turn auth on`)
  }
  const token = Option.getOrUndefined(raw.adminToken)
  if (token !== undefined && Redacted.value(token).trim().length === 0) {
    problems.push("SVC_ADMIN_TOKEN / --admin-token is set but empty")
  }
  if (exposed && raw.auth === "on" && token !== undefined && Redacted.value(token).trim().length < MIN_EXPOSED_ADMIN_TOKEN_LENGTH) {
    problems.push(
      `binding to the non-loopback address ${raw.host} requires an admin token of at least ${MIN_EXPOSED_ADMIN_TOKEN_LENGTH} characters (SVC_ADMIN_TOKEN)`
    )
  }
  const url = Option.getOrUndefined(raw.databaseUrl)?.trim()
  if (url !== undefined && url.length > 0 && !/^postgres(ql)?:\/\//i.test(url)) {
    problems.push("SVC_DATABASE_URL / --database-url must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite database)")
  }
  if (!Number.isInteger(raw.rateLimitMax) || raw.rateLimitMax < 1) problems.push("SVC_AUTH_RATE_LIMIT_MAX must be an integer >= 1")
  if (!Number.isInteger(raw.rateLimitWindowSeconds) || raw.rateLimitWindowSeconds < 1) {
    problems.push("SVC_AUTH_RATE_LIMIT_WINDOW_S must be an integer >= 1 (seconds)")
  }
  if (!Number.isInteger(raw.maxBodyBytes) || raw.maxBodyBytes < 1) problems.push("SVC_MAX_BODY_BYTES must be an integer >= 1 (bytes)")
  for (const [name, value] of [
    ["SVC_WS_HANDSHAKE_TIMEOUT_MS", raw.wsHandshakeTimeoutMs],
    ["SVC_WS_PING_INTERVAL_MS", raw.wsPingIntervalMs],
    ["SVC_WS_PONG_TIMEOUT_MS", raw.wsPongTimeoutMs],
    ["SVC_WS_MAX_MESSAGE_BYTES", raw.wsMaxMessageBytes],
    ["SVC_HEADERS_TIMEOUT_MS", raw.headersTimeoutMs],
    ["SVC_REQUEST_TIMEOUT_MS", raw.requestTimeoutMs],
    ["SVC_MAX_CONNECTIONS", raw.maxConnections],
    ["SVC_APPROVAL_TTL_S", raw.approvalTtlSeconds],
    ["SVC_EXEC_CONCURRENCY", raw.execConcurrency]
  ] as const) {
    if (!Number.isInteger(value) || value < 1) problems.push(`${name} must be an integer >= 1`)
  }
  if (raw.headersTimeoutMs > raw.requestTimeoutMs) {
    problems.push("SVC_HEADERS_TIMEOUT_MS must not exceed SVC_REQUEST_TIMEOUT_MS (the headers are part of the request)")
  }
  const otlpEndpoint = Option.getOrUndefined(raw.otlpEndpoint ?? Option.none())?.trim() || undefined
  if (otlpEndpoint !== undefined && !/^https?:\/\//i.test(otlpEndpoint)) {
    problems.push("OTEL_EXPORTER_OTLP_ENDPOINT / --otlp-endpoint must be an http:// or https:// URL (the collector's OTLP/HTTP base URL)")
  } else if (otlpEndpoint !== undefined && !URL.canParse(otlpEndpoint)) {
    problems.push("OTEL_EXPORTER_OTLP_ENDPOINT / --otlp-endpoint is not a valid URL")
  }
  const traceTargets = parseTracePropagationTargets(Option.getOrUndefined(raw.tracePropagationTargets ?? Option.none()) ?? "")
  if (typeof traceTargets === "string") problems.push(traceTargets)
  if (problems.length > 0) return { ok: false, problems }
  return {
    ok: true,
    settings: {
      host: raw.host.trim(),
      port: raw.port,
      home: Option.getOrElse(raw.home, defaultHome),
      databaseUrl: url !== undefined && url.length > 0 ? url : undefined,
      adminToken: token !== undefined ? Redacted.make(Redacted.value(token).trim()) : undefined,
      authEnabled: raw.auth === "on",
      rateLimitMax: raw.rateLimitMax,
      rateLimitWindowSeconds: raw.rateLimitWindowSeconds,
      maxBodyBytes: raw.maxBodyBytes,
      logLevel: raw.logLevel,
      wsHandshakeTimeoutMs: raw.wsHandshakeTimeoutMs,
      wsPingIntervalMs: raw.wsPingIntervalMs,
      wsPongTimeoutMs: raw.wsPongTimeoutMs,
      wsMaxMessageBytes: raw.wsMaxMessageBytes,
      headersTimeoutMs: raw.headersTimeoutMs,
      requestTimeoutMs: raw.requestTimeoutMs,
      maxConnections: raw.maxConnections,
      approvalTtlSeconds: raw.approvalTtlSeconds,
      execConcurrency: raw.execConcurrency,
      policyBundlePath: Option.getOrUndefined(raw.policyBundlePath ?? Option.none())?.trim() || undefined,
      oauthProvidersConfig: Option.getOrUndefined(raw.oauthProvidersConfig ?? Option.none())?.trim() || undefined,
      authProfilesEnabled: raw.authProfiles !== "off",
      secretProvider: raw.secretProvider ?? "db",
      secretsMasterKeyPath: Option.getOrUndefined(raw.secretsMasterKeyPath ?? Option.none())?.trim() || undefined,
      engineApiEnabled: raw.engineApi === "1",
      cliEnabled: raw.cliSteps === "1",
      cliUnsandboxed: raw.cliUnsandboxed === "1",
      automationEnabled: raw.automation === "1",
      snapshotImportEnabled: raw.snapshotImport === "1",
      metricsEnabled: raw.metrics !== "off",
      otlpEndpoint,
      tracePropagationTargets: typeof traceTargets === "string" ? [] : traceTargets,
      isExposed: exposed
    }
  }
}

/**
 * What {@link defaultSettings} lets a caller override: any setting except the
 * derived `isExposed`; `adminToken` may be a plain string.
 */
export type SettingsOverrides =
  & Partial<Omit<GatewaySettings, "isExposed" | "adminToken">>
  & { readonly adminToken?: string | Redacted.Redacted<string> | undefined }

/**
 * Validated settings for apps that compose the gateway's layers themselves
 * (`GatewayServicesLive(settings)`, `GatewayLive(settings)`): the documented
 * defaults of `svc-gateway serve` (127.0.0.1:8788, state in `~/.svc`, SQLite,
 * auth on, admin token from `$home/admin-token`, …) with `overrides` applied.
 * It reads no environment variable and no flag: pass what you want, e.g.
 * `defaultSettings({ home: "/var/lib/my-app/svc", adminToken: process.env.SVC_ADMIN_TOKEN })`.
 *
 * The result goes through {@link validateSettings}, so the same cross-field
 * rules as the CLI apply (and `isExposed` is derived from `host`). An
 * `undefined` override means "use the default". Throws an `Error` listing
 * every problem when the combination is invalid (e.g. `authEnabled: false`
 * on a non-loopback host).
 */
export const defaultSettings = (overrides: SettingsOverrides = {}): GatewaySettings => {
  const o = Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)) as SettingsOverrides
  const token = o.adminToken === undefined
    ? Option.none()
    : Option.some(typeof o.adminToken === "string" ? Redacted.make(o.adminToken) : o.adminToken)
  const result = validateSettings({
    ...DEFAULTS,
    ...o,
    home: Option.fromUndefinedOr(o.home),
    databaseUrl: Option.fromUndefinedOr(o.databaseUrl),
    policyBundlePath: Option.fromUndefinedOr(o.policyBundlePath),
    oauthProvidersConfig: Option.fromUndefinedOr(o.oauthProvidersConfig),
    secretsMasterKeyPath: Option.fromUndefinedOr(o.secretsMasterKeyPath),
    adminToken: token,
    auth: o.authEnabled === false ? "off" : "on",
    authProfiles: o.authProfilesEnabled === false ? "off" : "on",
    engineApi: o.engineApiEnabled === true ? "1" : "0",
    cliSteps: o.cliEnabled === true ? "1" : "0",
    cliUnsandboxed: o.cliUnsandboxed === true ? "1" : "0",
    automation: o.automationEnabled === true ? "1" : "0",
    snapshotImport: o.snapshotImportEnabled === true ? "1" : "0",
    metrics: o.metricsEnabled === false ? "off" : "on",
    otlpEndpoint: Option.fromUndefinedOr(o.otlpEndpoint),
    tracePropagationTargets: Option.fromUndefinedOr(o.tracePropagationTargets?.join(","))
  })
  if (!result.ok) throw new Error(`svc-gateway: invalid settings:\n${result.problems.map((p) => `  - ${p}`).join("\n")}`)
  return result.settings
}

