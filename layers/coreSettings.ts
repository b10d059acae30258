/**
 * The gateway-wide settings (issue 21 §1): where it listens and keeps its
 * state, its log level, gateway authentication, the limits of its HTTP
 * and WebSocket transports and where the operator console's build is
 * (`uiDir`: the trimmed path, or `undefined` for the package's own `dist/ui`,
 * src/app/routes/uiLocation.ts). Each subsystem declares its own settings in its
 * folder (`services/<subsystem>/settings.ts`); src/app/settings.ts collects them
 * all. The cross-field rules (auth off only on loopback, the admin token's
 * length on an exposed bind, headers within the request time) are
 * layers/config.ts `deriveSettings` (`validateSettings`).
 */
import { type LogLevel, Option, Redacted, Result } from "effect"
import { homedir } from "node:os"
import { join } from "node:path"
import { Setting } from "./settings.ts"

/** Accepted values of `SVC_LOG_LEVEL` / `--log-level` (any case is accepted). */
export const LOG_LEVELS = ["Trace", "Debug", "Info", "Warn", "Error"] as const

/** The state directory when `SVC_HOME` is not set: `~/.svc`. */
export const defaultHome = (): string => join(homedir(), ".svc")

/** A positive integer (milliseconds, bytes, a count) of the transports: `<ENV> must be an integer >= 1` otherwise. */
const positive = (env: string, flag: string, value: number, summary: string, doc: string) =>
  Setting.integer({ env, flag, default: value, summary, doc })

/** The gateway-wide settings, in the order `--help` lists them among the others (layers/config.ts). */
export const CoreSettings = Setting.group("core", {
  host: Setting.text({
    env: "SVC_HOST",
    flag: "host",
    default: "127.0.0.1",
    summary: "Address to bind (SVC_HOST)",
    doc: "Address to bind. Anything but loopback is *exposed* (`/healthz` `is_exposed: true`).",
    resolve: (raw) => raw.trim().length === 0 ? Result.fail("SVC_HOST / --host must not be empty") : Result.succeed(raw.trim())
  }),
  port: Setting.integer({
    env: "SVC_PORT",
    flag: "port",
    default: 8788,
    min: 0,
    max: 65535,
    summary: "Port to listen on, 0 for any free port (SVC_PORT)",
    doc: "Port (0 = any free port).",
    problem: (value) => `SVC_PORT / --port must be an integer from 0 to 65535 (0 = any free port), got ${value}`
  }),
  logLevel: Setting.make<LogLevel.LogLevel, LogLevel.LogLevel>({
    env: "SVC_LOG_LEVEL",
    flag: "log-level",
    kind: "choice",
    metavar: `<${LOG_LEVELS.join("|")}>`,
    default: "Info",
    defaultText: "Info",
    summary: "Least level of the JSON log lines on stdout, any case (SVC_LOG_LEVEL)",
    doc: "`Trace`, `Debug`, `Info`, `Warn`, `Error`, in any case. Logs are JSON lines on stdout.",
    decode: Setting.decodeChoice(LOG_LEVELS),
    resolve: Result.succeed,
    fromValue: (value) => value
  }),
  home: Setting.optionalText<string>({
    env: "SVC_HOME",
    flag: "home",
    unset: "~/.svc",
    summary: "State directory, created (0700) if missing (SVC_HOME)",
    doc:
      "State directory; created (mode 0700) if missing. Checked at start when the gateway writes there (SQLite, a generated admin token or master key): not writable stops the start with one line.",
    resolve: (raw) => Result.succeed(Option.getOrElse(raw, defaultHome)),
    fromValue: Option.some
  }),
  databaseUrl: Setting.optionalText({
    env: "SVC_DATABASE_URL",
    flag: "database-url",
    unset: "unset: SQLite $SVC_HOME/gateway.db",
    summary: "postgres:// URL of a PostgreSQL database (SVC_DATABASE_URL)",
    doc: "`postgres://…` to use PostgreSQL. Migrations run at start on both.",
    resolve: (raw) => {
      const url = Option.getOrUndefined(raw)?.trim()
      return url !== undefined && url.length > 0 && !/^postgres(ql)?:\/\//i.test(url)
        ? Result.fail("SVC_DATABASE_URL / --database-url must be a postgres:// or postgresql:// URL (leave it unset for the embedded SQLite database)")
        : Result.succeed(url !== undefined && url.length > 0 ? url : undefined)
    }
  }),
  sqliteSynchronous: Setting.choice({
    env: "SVC_SQLITE_SYNCHRONOUS",
    flag: "sqlite-synchronous",
    values: ["FULL", "NORMAL"],
    default: "FULL",
    summary: "SQLite PRAGMA synchronous: FULL, or NORMAL (faster commits; a power loss may drop the last ones) (SVC_SQLITE_SYNCHRONOUS)",
    doc:
      "SQLite's `PRAGMA synchronous` (the database is in WAL mode). `FULL` syncs the log at every commit. `NORMAL` syncs it only at checkpoints: commits cost less, and a crash of the gateway's process (kill -9) still loses nothing, but a power loss or an operating-system crash may lose the last transactions (docs/performance.md). PostgreSQL ignores it."
  }),
  adminToken: Setting.secret({
    env: "SVC_ADMIN_TOKEN",
    flag: "admin-token",
    unset: "$SVC_HOME/admin-token, generated on first start",
    summary: "Admin token; at least 32 characters on a non-loopback bind (SVC_ADMIN_TOKEN)",
    doc:
      "Break-glass admin token (else `$SVC_HOME/admin-token`, generated: 32 random bytes, hex). At least 32 characters on a non-loopback bind.",
    resolve: (raw) => {
      const token = Option.getOrUndefined(raw)
      if (token === undefined) return Result.succeed(undefined)
      const trimmed = Redacted.value(token).trim()
      return trimmed.length === 0 ? Result.fail("SVC_ADMIN_TOKEN / --admin-token is set but empty") : Result.succeed(Redacted.make(trimmed))
    }
  }),
  auth: Setting.named(
    "authEnabled",
    Setting.toggle({
      env: "SVC_AUTH",
      flag: "auth",
      values: ["on", "off"],
      on: "on",
      default: "on",
      summary: "Gateway auth (SVC_AUTH); off is allowed only on a loopback bind",
      doc: "`off` disables authentication; only allowed on a loopback bind."
    })
  ),
  rateLimitMax: positive(
    "SVC_AUTH_RATE_LIMIT_MAX",
    "auth-rate-limit-max",
    20,
    "Failed authentications per window and client address before 429 (SVC_AUTH_RATE_LIMIT_MAX)",
    "Failed authentications per window and client address; more get 429 (valid credentials are never refused)."
  ),
  rateLimitWindowSeconds: Setting.integer({
    env: "SVC_AUTH_RATE_LIMIT_WINDOW_S",
    flag: "auth-rate-limit-window",
    default: 60,
    unit: "seconds",
    summary: "Rate-limit window in seconds (SVC_AUTH_RATE_LIMIT_WINDOW_S)",
    doc: "Sliding-window length in seconds."
  }),
  maxBodyBytes: Setting.integer({
    env: "SVC_MAX_BODY_BYTES",
    flag: "max-body-bytes",
    default: 1_048_576,
    unit: "bytes",
    summary: "Largest accepted request body in bytes (SVC_MAX_BODY_BYTES)",
    doc: "Largest request body; larger gets 413."
  }),
  wsHandshakeTimeoutMs: positive(
    "SVC_WS_HANDSHAKE_TIMEOUT_MS",
    "ws-handshake-timeout-ms",
    10_000,
    "WebSocket handshake timeout in ms; close 4002 after it (SVC_WS_HANDSHAKE_TIMEOUT_MS)",
    "Time to complete `connect.init`/`connect.proof` (close 4002)."
  ),
  wsPingIntervalMs: positive(
    "SVC_WS_PING_INTERVAL_MS",
    "ws-ping-interval-ms",
    5_000,
    "Interval of WebSocket ping frames in ms (SVC_WS_PING_INTERVAL_MS)",
    "WebSocket ping frames."
  ),
  wsPongTimeoutMs: positive(
    "SVC_WS_PONG_TIMEOUT_MS",
    "ws-pong-timeout-ms",
    10_000,
    "Terminate a WebSocket peer silent for this many ms (SVC_WS_PONG_TIMEOUT_MS)",
    "A silent peer is terminated after this."
  ),
  wsMaxMessageBytes: positive(
    "SVC_WS_MAX_MESSAGE_BYTES",
    "ws-max-message-bytes",
    1_048_576,
    "Largest WebSocket message in bytes; close 1009 above (SVC_WS_MAX_MESSAGE_BYTES)",
    "Larger WebSocket messages close with 1009."
  ),
  headersTimeoutMs: positive(
    "SVC_HEADERS_TIMEOUT_MS",
    "headers-timeout-ms",
    10_000,
    "Time to receive a request's headers in ms; 408 after it (SVC_HEADERS_TIMEOUT_MS)",
    "Time a client has to send a request's headers (408 after it); at most `SVC_REQUEST_TIMEOUT_MS`."
  ),
  requestTimeoutMs: positive(
    "SVC_REQUEST_TIMEOUT_MS",
    "request-timeout-ms",
    30_000,
    "Time to receive a whole request in ms (SVC_REQUEST_TIMEOUT_MS)",
    "Time a client has to send a whole request, headers and body."
  ),
  maxConnections: positive(
    "SVC_MAX_CONNECTIONS",
    "max-connections",
    4096,
    "Most open connections, HTTP and WebSocket (SVC_MAX_CONNECTIONS)",
    "Most open connections (HTTP and WebSocket); more are dropped at accept."
  ),
  uiDir: Setting.optionalText({
    env: "SVC_UI_DIR",
    flag: "ui-dir",
    unset: "unset: dist/ui of the installed package",
    summary: "Directory of the operator console's built assets, served at /ui (SVC_UI_DIR)",
    doc:
      "Directory of the operator console's build (`index.html`, `assets/`), served at `/ui` and read once at start. Unset: the package's own `dist/ui` (built by `npm run build`). Missing: `GET /ui` answers 404 `operator_ui_assets_unavailable`."
  })
})

declare module "./settings.ts" {
  /** Enters the gateway-wide settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly core: typeof CoreSettings.settings
  }
}
