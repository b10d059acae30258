/**
 * The `svc-gateway serve` flags and their environment variables (Effect
 * `Config` and `effect/cli`): a flag wins over the environment, which wins
 * over the default (layers/config.ts `DEFAULTS`). `validateSettings` then
 * checks the cross-field rules before anything starts, so the gateway never
 * runs half-configured.
 */
import { Config } from "effect"
import { Flag } from "effect/cli"
import { DEFAULTS } from "../layers/config.ts"

/** Accepted values of `SVC_LOG_LEVEL`. */
export const LOG_LEVELS = ["Trace", "Debug", "Info", "Warn", "Error"] as const

/**
 * `SVC_LOG_LEVEL`, when set. (The effect/cli global `--log-level` flag is the
 * command-line form; the environment wins when both are given.)
 */
export const logLevelConfig = Config.option(Config.Literals(LOG_LEVELS, "SVC_LOG_LEVEL"))

/** An integer flag `--name` that falls back to the environment variable `env`, then to `fallback`. */
const intFlag = (name: string, env: string, fallback: number, description: string) =>
  Flag.Int(name).pipe(
    Flag.withDescription(description),
    Flag.withFallbackConfig(Config.Int(env)),
    Flag.withDefault(fallback)
  )

/** An optional text flag `--name` (a path or URL) that falls back to the environment variable `env`. */
const textFlag = (name: string, env: string, description: string) =>
  Flag.String(name).pipe(
    Flag.withDescription(description),
    Flag.withFallbackConfig(Config.String(env)),
    Flag.optional
  )

/** A flag `--name` taking one of `choices`, falling back to the environment variable `env`, then to `fallback`. */
const choiceFlag = <const C extends ReadonlyArray<string>>(name: string, env: string, choices: C, fallback: C[number], description: string) =>
  Flag.Literals(name, choices).pipe(
    Flag.withDescription(description),
    Flag.withFallbackConfig(Config.Literals(choices, env)),
    Flag.withDefault(fallback)
  )

/** The `serve` command's flags; each falls back to its environment variable, then its default. */
export const settingsFlags = {
  host: Flag.String("host").pipe(
    Flag.withDescription("Address to bind (SVC_HOST)"),
    Flag.withFallbackConfig(Config.String("SVC_HOST")),
    Flag.withDefault(DEFAULTS.host)
  ),
  port: intFlag("port", "SVC_PORT", DEFAULTS.port, "Port to listen on, 0 for any free port (SVC_PORT)"),
  home: textFlag("home", "SVC_HOME", "State directory (SVC_HOME, default ~/.svc)"),
  databaseUrl: textFlag("database-url", "SVC_DATABASE_URL", "postgres:// URL; unset = SQLite $SVC_HOME/gateway.db (SVC_DATABASE_URL)"),
  policyBundlePath: textFlag("policy-bundle-path", "SVC_POLICY_BUNDLE_PATH", "Deployment policy bundle, YAML or JSON; unset = the built-in bundle (SVC_POLICY_BUNDLE_PATH)"),
  oauthProvidersConfig: textFlag("oauth-providers-config", "SVC_OAUTH_PROVIDERS_CONFIG", "OAuth providers file, YAML or JSON; unset = $SVC_HOME/oauth-providers.yml if present (SVC_OAUTH_PROVIDERS_CONFIG)"),
  authProfiles: choiceFlag("auth-profiles", "SVC_AUTH_PROFILES", ["on", "off"] as const, "on", "Auth profiles and session pins (SVC_AUTH_PROFILES); off removes their routes (404)"),
  secretProvider: choiceFlag("secret-provider", "SVC_SECRET_PROVIDER", ["db", "env"] as const, "db", "Secret provider: db (encrypted in the database) or env (environment variables) (SVC_SECRET_PROVIDER)"),
  engineApi: choiceFlag("engine-api", "SVC_ENGINE_API_ENABLED", ["0", "1"] as const, "0", "1 serves the workflow engine's HTTP routes, /workflow/* (SVC_ENGINE_API_ENABLED); 0: they answer 404"),
  cliSteps: choiceFlag("cli-steps", "SVC_CLI_ENABLED", ["0", "1"] as const, "0", "1 lets workflow CLI steps run commands (SVC_CLI_ENABLED); 0: they fail with unsupported_action"),
  cliUnsandboxed: choiceFlag("cli-unsandboxed", "SVC_CLI_UNSANDBOXED", ["0", "1"] as const, "0", "1 runs CLI steps even when no sandbox (bwrap, unshare) works, able to read the gateway's files and environment (SVC_CLI_UNSANDBOXED); 0: they fail with sandbox_unavailable"),
  automation: choiceFlag("automation", "SVC_AUTOMATION_ENABLED", ["0", "1"] as const, "0", "1 lets watcher firings start their runs (SVC_AUTOMATION_ENABLED); 0: firings are only recorded"),
  snapshotImport: choiceFlag("snapshot-import", "SVC_SNAPSHOT_IMPORT_ENABLED", ["0", "1"] as const, "0", "1 lets POST /snapshot/import import a bundle into empty tables (SVC_SNAPSHOT_IMPORT_ENABLED); 0: it answers 403"),
  metrics: choiceFlag("metrics", "SVC_METRICS", ["on", "off"] as const, "on", "Record metrics and serve GET /metrics (SVC_METRICS); off: nothing is recorded and /metrics answers 404"),
  otlpEndpoint: textFlag("otlp-endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTLP/HTTP collector base URL; set: spans are exported to <url>/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT); unset: no tracing"),
  tracePropagationTargets: textFlag("trace-propagation-targets", "SVC_TRACE_PROPAGATION_TARGETS", "Comma-separated URL patterns of workflow Http targets that receive trace headers (traceparent, b3), e.g. https://api.internal.example/*; unset: none (SVC_TRACE_PROPAGATION_TARGETS)"),
  secretsMasterKeyPath: textFlag("secrets-master-key-path", "SVC_SECRETS_MASTER_KEY_PATH", "Master key of the db secret provider; generated on first start (SVC_SECRETS_MASTER_KEY_PATH, default $SVC_HOME/secrets.master.key)"),
  adminToken: Flag.Redacted("admin-token").pipe(
    Flag.withDescription("Admin token (SVC_ADMIN_TOKEN); default: $SVC_HOME/admin-token, generated on first start"),
    Flag.withFallbackConfig(Config.Redacted("SVC_ADMIN_TOKEN")),
    Flag.optional
  ),
  auth: choiceFlag("auth", "SVC_AUTH", ["on", "off"] as const, "on", "Gateway auth (SVC_AUTH); off is allowed only on a loopback bind"),
  rateLimitMax: intFlag("auth-rate-limit-max", "SVC_AUTH_RATE_LIMIT_MAX", DEFAULTS.rateLimitMax, "Failed authentications per window and client address before 429 (SVC_AUTH_RATE_LIMIT_MAX)"),
  rateLimitWindowSeconds: intFlag("auth-rate-limit-window", "SVC_AUTH_RATE_LIMIT_WINDOW_S", DEFAULTS.rateLimitWindowSeconds, "Rate-limit window in seconds (SVC_AUTH_RATE_LIMIT_WINDOW_S)"),
  maxBodyBytes: intFlag("max-body-bytes", "SVC_MAX_BODY_BYTES", DEFAULTS.maxBodyBytes, "Largest accepted request body in bytes (SVC_MAX_BODY_BYTES)"),
  wsHandshakeTimeoutMs: intFlag("ws-handshake-timeout-ms", "SVC_WS_HANDSHAKE_TIMEOUT_MS", DEFAULTS.wsHandshakeTimeoutMs, "WebSocket handshake timeout in ms; close 4002 after it (SVC_WS_HANDSHAKE_TIMEOUT_MS)"),
  wsPingIntervalMs: intFlag("ws-ping-interval-ms", "SVC_WS_PING_INTERVAL_MS", DEFAULTS.wsPingIntervalMs, "Interval of WebSocket ping frames in ms (SVC_WS_PING_INTERVAL_MS)"),
  wsPongTimeoutMs: intFlag("ws-pong-timeout-ms", "SVC_WS_PONG_TIMEOUT_MS", DEFAULTS.wsPongTimeoutMs, "Terminate a WebSocket peer silent for this many ms (SVC_WS_PONG_TIMEOUT_MS)"),
  wsMaxMessageBytes: intFlag("ws-max-message-bytes", "SVC_WS_MAX_MESSAGE_BYTES", DEFAULTS.wsMaxMessageBytes, "Largest WebSocket message in bytes; close 1009 above (SVC_WS_MAX_MESSAGE_BYTES)"),
  headersTimeoutMs: intFlag("headers-timeout-ms", "SVC_HEADERS_TIMEOUT_MS", DEFAULTS.headersTimeoutMs, "Time to receive a request's headers in ms; 408 after it (SVC_HEADERS_TIMEOUT_MS)"),
  requestTimeoutMs: intFlag("request-timeout-ms", "SVC_REQUEST_TIMEOUT_MS", DEFAULTS.requestTimeoutMs, "Time to receive a whole request in ms (SVC_REQUEST_TIMEOUT_MS)"),
  maxConnections: intFlag("max-connections", "SVC_MAX_CONNECTIONS", DEFAULTS.maxConnections, "Most open connections, HTTP and WebSocket (SVC_MAX_CONNECTIONS)"),
  approvalTtlSeconds: intFlag("approval-ttl", "SVC_APPROVAL_TTL_S", DEFAULTS.approvalTtlSeconds, "Default approval lifetime in seconds before it expires (SVC_APPROVAL_TTL_S)"),
  execConcurrency: intFlag("exec-concurrency", "SVC_EXEC_CONCURRENCY", DEFAULTS.execConcurrency, "Workflow steps running at once across runs; paused runs hold none (SVC_EXEC_CONCURRENCY)")
}
