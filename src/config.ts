/**
 * The `svc-gateway serve` settings: each one a flag and an environment
 * variable (a flag wins over the environment, which wins over the default,
 * layers/config.ts `DEFAULTS`). `validateSettings` then checks the
 * cross-field rules before anything starts, so the gateway never runs
 * half-configured.
 *
 * A setting's flag never fails to parse: it yields a {@link SettingValue},
 * the decoded value or one line saying what is wrong (`invalid SVC_PORT
 * "abc": expected an integer 0..65535`, naming `--port` when the flag gave
 * the value). The CLI collects every problem ({@link collectSettings}) and
 * prints them, one line each, instead of effect/cli's usage dump. Each flag
 * also carries its {@link SettingDoc}, from which `--help` lists every
 * setting with its variable and default (src/cliOutput.ts).
 *
 * Adding a setting is one row in {@link settingsFlags} (and its field in
 * layers/config.ts `RawSettings`/`GatewaySettings`).
 */
import { Config, Effect, Option, Redacted, Result } from "effect"
import { Flag } from "effect/cli"
import { DEFAULTS } from "../layers/config.ts"

/** Accepted values of `SVC_LOG_LEVEL` / `--log-level` (any case is accepted). */
export const LOG_LEVELS = ["Trace", "Debug", "Info", "Warn", "Error"] as const

/** How a setting reads in `--help` and the README table. */
export interface SettingDoc {
  /** `--port` */
  readonly flag: string
  /** `SVC_PORT` */
  readonly env: string
  /** The default as a user reads it: `8788`, `~/.svc`, `unset: no tracing`. */
  readonly default: string
  readonly description: string
  /** What the value is: an integer, one of a few choices, or text (a path, a URL, a secret) judged elsewhere. */
  readonly kind: "integer" | "choice" | "text"
}

/**
 * A setting's value, or the one-line problem with it: `invalid <SOURCE>
 * "<value>": expected <what is accepted>`, where SOURCE is the flag
 * (`--port`) or the variable (`SVC_PORT`) the value came from.
 */
export type SettingValue<A> = Result.Result<A, string>

/** A setting's flag (falling back to its variable, then its default) and its documentation. */
export interface SettingFlag<A> extends Flag.Flag<SettingValue<A>> {
  readonly setting: SettingDoc
}

/** The outcome of decoding one raw value: the value, or what is accepted (`an integer 0..65535`). */
type Decode<A> = (raw: string) => Result.Result<A, string>

/**
 * The flag `--name` of one setting: the flag's text, else the variable
 * `env`'s, else `fallback`, decoded by `decode`. The flag itself only reads
 * text, so a bad value is a {@link SettingValue} failure naming its source,
 * never a parse error. `secret`: the value is never repeated in a problem.
 */
const settingFlag = <A>(options: {
  readonly name: string
  readonly env: string
  readonly fallback: A
  readonly defaultText: string
  readonly description: string
  readonly metavar: string
  readonly kind: SettingDoc["kind"]
  readonly decode: Decode<A>
  readonly secret?: boolean
}): SettingFlag<A> => {
  const { decode, env, name } = options
  const description = options.description.includes(env) ? options.description : `${options.description} (${env})`
  const flag = Flag.String(name).pipe(
    Flag.withMetavar(options.metavar),
    Flag.withDescription(`${description} [default: ${options.defaultText}]`),
    Flag.optional,
    Flag.mapEffect((fromFlag) =>
      Effect.map(Effect.orDie(Config.option(Config.String(env))), (fromEnv): SettingValue<A> => {
        const source = Option.isSome(fromFlag)
          ? { name: `--${name}`, raw: fromFlag.value }
          : Option.isSome(fromEnv)
          ? { name: env, raw: fromEnv.value }
          : undefined
        if (source === undefined) return Result.succeed(options.fallback)
        return Result.mapError(
          decode(source.raw),
          (expected) => `invalid ${source.name}${options.secret === true ? "" : ` ${JSON.stringify(source.raw)}`}: expected ${expected}`
        )
      })
    )
  )
  return Object.assign(flag, { setting: { flag: `--${name}`, env, default: options.defaultText, description, kind: options.kind } })
}

/** Integers from `min` (default 1) to `max` (default: no limit), in decimal. */
const integer = (range: { readonly min?: number; readonly max?: number } = {}): Decode<number> => {
  const min = range.min ?? 1
  const expected = range.max === undefined ? `an integer >= ${min}` : `an integer ${min}..${range.max}`
  return (raw) => {
    const text = raw.trim()
    const value = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN
    return Number.isSafeInteger(value) && value >= min && (range.max === undefined || value <= range.max)
      ? Result.succeed(value)
      : Result.fail(expected)
  }
}

/** One of `choices`, in any case (`INFO`, `info` and `Info` are `Info`). */
const oneOf = <const C extends ReadonlyArray<string>>(choices: C): Decode<C[number]> => {
  const expected = choices.length === 2 ? `${choices[0]} or ${choices[1]}` : `one of ${choices.join(", ")}`
  const byLowerCase = new Map(choices.map((c) => [c.toLowerCase(), c] as const))
  return (raw) => {
    const choice = byLowerCase.get(raw.trim().toLowerCase())
    return choice === undefined ? Result.fail(`${expected} (any case)`) : Result.succeed(choice)
  }
}

/** An integer setting `--name` / `env`, default `fallback`; `range` defaults to `>= 1`. */
const intFlag = (
  name: string,
  env: string,
  fallback: number,
  description: string,
  range?: { readonly min?: number; readonly max?: number }
) => settingFlag({ name, env, fallback, defaultText: String(fallback), description, metavar: "integer", kind: "integer", decode: integer(range) })

/**
 * An optional text setting `--name` / `env` (a path or URL); blank counts as
 * unset. `unset` says what happens without it (the help's default column).
 */
const textFlag = (name: string, env: string, description: string, unset = "unset") =>
  settingFlag<Option.Option<string>>({
    name,
    env,
    fallback: Option.none(),
    defaultText: unset,
    description,
    metavar: "string",
    kind: "text",
    decode: (raw) => Result.succeed(raw.trim() === "" ? Option.none() : Option.some(raw))
  })

/** A required text setting `--name` / `env` with a default (`validateSettings` checks its content). */
const stringFlag = (name: string, env: string, fallback: string, description: string) =>
  settingFlag({ name, env, fallback, defaultText: fallback, description, metavar: "string", kind: "text", decode: Result.succeed })

/** A secret text setting: kept `Redacted`, never repeated in a problem or the help. */
const secretFlag = (name: string, env: string, description: string, unset: string) =>
  settingFlag<Option.Option<Redacted.Redacted<string>>>({
    name,
    env,
    fallback: Option.none(),
    defaultText: unset,
    description,
    metavar: "string",
    kind: "text",
    secret: true,
    decode: (raw) => Result.succeed(Option.some(Redacted.make(raw)))
  })

/** A setting `--name` / `env` taking one of `choices` (any case), default `fallback`. */
const choiceFlag = <const C extends ReadonlyArray<string>>(name: string, env: string, choices: C, fallback: C[number], description: string) =>
  settingFlag({ name, env, fallback, defaultText: fallback, description, metavar: `<${choices.join("|")}>`, kind: "choice", decode: oneOf(choices) })

/** The `serve` command's settings, in `--help` order; each flag falls back to its environment variable, then its default. */
export const settingsFlags = {
  host: stringFlag("host", "SVC_HOST", DEFAULTS.host, "Address to bind (SVC_HOST)"),
  port: intFlag("port", "SVC_PORT", DEFAULTS.port, "Port to listen on, 0 for any free port (SVC_PORT)", { min: 0, max: 65535 }),
  logLevel: choiceFlag("log-level", "SVC_LOG_LEVEL", LOG_LEVELS, DEFAULTS.logLevel, "Least level of the JSON log lines on stdout, any case (SVC_LOG_LEVEL)"),
  home: textFlag("home", "SVC_HOME", "State directory, created (0700) if missing (SVC_HOME)", "~/.svc"),
  databaseUrl: textFlag("database-url", "SVC_DATABASE_URL", "postgres:// URL of a PostgreSQL database (SVC_DATABASE_URL)", "unset: SQLite $SVC_HOME/gateway.db"),
  policyBundlePath: textFlag("policy-bundle-path", "SVC_POLICY_BUNDLE_PATH", "Deployment policy bundle, YAML or JSON (SVC_POLICY_BUNDLE_PATH)", "unset: the built-in bundle"),
  oauthProvidersConfig: textFlag("oauth-providers-config", "SVC_OAUTH_PROVIDERS_CONFIG", "OAuth providers file, YAML or JSON (SVC_OAUTH_PROVIDERS_CONFIG)", "$SVC_HOME/oauth-providers.yml if present"),
  authProfiles: choiceFlag("auth-profiles", "SVC_AUTH_PROFILES", ["on", "off"] as const, "on", "Auth profiles and session pins (SVC_AUTH_PROFILES); off removes their routes (404)"),
  secretProvider: choiceFlag("secret-provider", "SVC_SECRET_PROVIDER", ["db", "env"] as const, "db", "Secret provider: db (encrypted in the database) or env (environment variables) (SVC_SECRET_PROVIDER)"),
  engineApi: choiceFlag("engine-api", "SVC_ENGINE_API_ENABLED", ["0", "1"] as const, "0", "1 serves the workflow engine's HTTP routes, /workflow/* (SVC_ENGINE_API_ENABLED); 0: they answer 404"),
  cliSteps: choiceFlag("cli-steps", "SVC_CLI_ENABLED", ["0", "1"] as const, "0", "1 lets workflow CLI steps run commands (SVC_CLI_ENABLED); 0: they fail with unsupported_action"),
  cliUnsandboxed: choiceFlag("cli-unsandboxed", "SVC_CLI_UNSANDBOXED", ["0", "1"] as const, "0", "1 runs CLI steps even when no sandbox (bwrap, unshare) works, able to read the gateway's files and environment (SVC_CLI_UNSANDBOXED); 0: they fail with sandbox_unavailable"),
  automation: choiceFlag("automation", "SVC_AUTOMATION_ENABLED", ["0", "1"] as const, "0", "1 lets watcher firings start their runs (SVC_AUTOMATION_ENABLED); 0: firings are only recorded"),
  snapshotImport: choiceFlag("snapshot-import", "SVC_SNAPSHOT_IMPORT_ENABLED", ["0", "1"] as const, "0", "1 lets POST /snapshot/import import a bundle into empty tables (SVC_SNAPSHOT_IMPORT_ENABLED); 0: it answers 403"),
  metrics: choiceFlag("metrics", "SVC_METRICS", ["on", "off"] as const, "on", "Record metrics and serve GET /metrics (SVC_METRICS); off: nothing is recorded and /metrics answers 404"),
  otlpEndpoint: textFlag("otlp-endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTLP/HTTP collector base URL; spans are exported to <url>/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT)", "unset: no tracing"),
  tracePropagationTargets: textFlag("trace-propagation-targets", "SVC_TRACE_PROPAGATION_TARGETS", "Comma-separated URL patterns of workflow Http targets that receive trace headers (traceparent, b3), e.g. https://api.internal.example/* (SVC_TRACE_PROPAGATION_TARGETS)", "unset: none"),
  secretsMasterKeyPath: textFlag("secrets-master-key-path", "SVC_SECRETS_MASTER_KEY_PATH", "Master key of the db secret provider; generated on first start (SVC_SECRETS_MASTER_KEY_PATH)", "$SVC_HOME/secrets.master.key"),
  adminToken: secretFlag("admin-token", "SVC_ADMIN_TOKEN", "Admin token; at least 32 characters on a non-loopback bind (SVC_ADMIN_TOKEN)", "$SVC_HOME/admin-token, generated on first start"),
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

/** Every setting's documentation, in {@link settingsFlags} order (for `--help` and the README table). */
export const settingsDocs: ReadonlyArray<SettingDoc> = Object.values(settingsFlags).map((flag) => flag.setting)

/** The decoded values of a record of {@link SettingValue}s. */
export type SettingValues<R extends Record<string, SettingValue<unknown>>> = {
  readonly [K in keyof R]: R[K] extends SettingValue<infer A> ? A : never
}

/**
 * Every value of `values`, or every problem among them (one line each, in
 * order), so a start with several bad settings reports them all at once.
 */
export const collectSettings = <R extends Record<string, SettingValue<unknown>>>(
  values: R
): Result.Result<SettingValues<R>, ReadonlyArray<string>> => {
  const problems: Array<string> = []
  const decoded: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(values)) {
    if (Result.isFailure(value)) problems.push(value.failure)
    else decoded[key] = value.success
  }
  return problems.length > 0 ? Result.fail(problems) : Result.succeed(decoded as SettingValues<R>)
}
