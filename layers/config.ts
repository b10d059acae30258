/**
 * The validated settings of one gateway process (`GatewayConfig`), derived
 * from the settings declarations (layers/settings.ts): the gateway-wide
 * ones (layers/coreSettings.ts) and each subsystem's
 * (`services/<subsystem>/settings.ts`). No list of them is kept here:
 * - the types (`GatewaySettings`, {@link SettingKey}, {@link RawSettings})
 *   come from layers/settings.ts `SettingsRegistry`, which each declaring
 *   file enters its group into;
 * - the values come from the root's list of subsystems (src/app/settings.ts
 *   `SETTINGS_GROUPS`: the core settings and each descriptor's `settings`),
 *   given to {@link deriveSettings}, which derives the declared settings in
 *   the CLI's order, the defaults, `validateSettings` (each setting's own
 *   check, then the cross-field rules) and `defaultSettings`.
 *
 * src/config.ts derives the CLI flags and the reading of the environment,
 * src/cliOutput.ts the `--help` table, scripts/settingsTable.ts the README's
 * table (README.md "Configuration" lists every setting with its variable,
 * flag and default).
 *
 * Settings enter the dependency graph once, as `GatewayConfig`
 * (src/app/gateway.ts `GatewayConfigLive`); every subsystem and transport
 * reads what it needs from there.
 */
import { Context, Option, Redacted, Result } from "effect"
import { clusterProblems } from "../services/cluster/settings.ts"
import type { AnySetting, RawOf, RawSettingsOf, SettingsGroup, SettingsOf, SettingsRegistry } from "./settings.ts"

export { defaultHome, LOG_LEVELS } from "./coreSettings.ts"
export { parseTracePropagationTargets } from "../services/diagnostics/settings.ts"

/** The gateway's version (package.json), reported by presence and the start log. */
export const GATEWAY_VERSION = "0.1.0"

/** The intersection of the members of the union `U`. */
type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never

/** Every declaration by raw key: the groups of `SettingsRegistry`, as one record (the type the settings types are derived from). */
type ALL = Intersection<SettingsRegistry[keyof SettingsRegistry]> & Record<never, AnySetting>

/** Every declared setting's raw key. */
export type SettingKey = keyof ALL & string

/**
 * The order `--help`, `serve --help` and the problem lines listed the
 * settings in before they were declared by subsystem (issue 20), kept so
 * the CLI prints exactly what it printed; a setting not named here comes
 * after these, in the order of the groups given to {@link deriveSettings}.
 */
const ISSUE_20_ORDER: ReadonlyArray<string> = [
  "host", "port", "logLevel", "home", "databaseUrl", "policyBundlePath", "oauthProvidersConfig", "authProfiles",
  "secretProvider", "engineApi", "cliSteps", "cliUnsandboxed", "automation", "snapshotImport", "metrics", "otlpEndpoint",
  "tracePropagationTargets", "secretsMasterKeyPath", "adminToken", "auth", "rateLimitMax", "rateLimitWindowSeconds",
  "maxBodyBytes", "wsHandshakeTimeoutMs", "wsPingIntervalMs", "wsPongTimeoutMs", "wsMaxMessageBytes", "headersTimeoutMs",
  "requestTimeoutMs", "maxConnections", "approvalTtlSeconds", "execConcurrency"
]

/** One declared setting with its raw key, its `GatewaySettings` property and the subsystem declaring it. */
export interface DeclaredSetting {
  readonly key: SettingKey
  readonly name: string
  readonly subsystem: string
  readonly setting: AnySetting
}

/**
 * Fully validated settings of one gateway process: one property per declared
 * setting (its declaration documents it), and `isExposed`.
 */
export interface GatewaySettings extends SettingsOf<ALL> {
  /** True when bound to a non-loopback address (`/healthz` `is_exposed`). */
  readonly isExposed: boolean
}

/** The settings of the running gateway, as a service (read by `/healthz`, the start log, …). */
export class GatewayConfig extends Context.Service<GatewayConfig, GatewaySettings>()("svc-gateway/GatewayConfig") {}

/**
 * Settings before validation, by raw key (flags and environment decoded, or
 * given by a program): each one optional, absent or `undefined` meaning its
 * default (`DEFAULTS`).
 */
export type RawSettings = RawSettingsOf<ALL>

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

/** The entries of `record` whose value is not `undefined`. */
const defined = <R extends object>(record: R): Partial<R> =>
  Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Partial<R>

/** The raw default of every setting, by raw key. */
export type SettingsDefaults = { readonly [K in SettingKey]: RawOf<ALL[K]> }

/** The result of validating settings: the settings, or every problem found. */
export type SettingsValidation = { readonly ok: true; readonly settings: GatewaySettings } | {
  readonly ok: false
  readonly problems: ReadonlyArray<string>
}

/**
 * What {@link DerivedSettings.defaultSettings} lets a caller override: any
 * setting except the derived `isExposed`; `adminToken` may be a plain string.
 */
export type SettingsOverrides =
  & Partial<Omit<GatewaySettings, "isExposed" | "adminToken">>
  & { readonly adminToken?: string | Redacted.Redacted<string> | undefined }

/** What {@link deriveSettings} derives from the groups of settings declarations. */
export interface DerivedSettings {
  /** Every declared setting, in the order the CLI lists them (`--help`, problem lines). */
  readonly DECLARED_SETTINGS: ReadonlyArray<DeclaredSetting>
  /**
   * The raw default of every setting (the value when neither its flag nor its
   * variable is set): times in milliseconds unless the name says seconds,
   * sizes in bytes; `Option.none()` for the optional texts.
   */
  readonly DEFAULTS: SettingsDefaults
  /**
   * Checks every setting (its declaration's `resolve`, in the CLI's order),
   * then the cross-field rules. Returns the settings or every problem found
   * (each a full sentence naming the setting), so startup can print them all.
   */
  readonly validateSettings: (raw: RawSettings) => SettingsValidation
  /**
   * Validated settings for apps that compose the gateway's layers themselves
   * (`GatewayServicesLive(settings)`, `GatewayLive(settings)`): the documented
   * defaults of `svc-gateway serve` (127.0.0.1:8788, state in `~/.svc`, SQLite,
   * auth on, admin token from `$home/admin-token`, …) with `overrides` applied.
   * It reads no environment variable and no flag: pass what you want, e.g.
   * `defaultSettings({ home: "/var/lib/my-app/svc", adminToken: process.env.SVC_ADMIN_TOKEN })`.
   *
   * The result goes through `validateSettings`, so the same cross-field
   * rules as the CLI apply (and `isExposed` is derived from `host`). An
   * `undefined` override means "use the default". Throws an `Error` listing
   * every problem when the combination is invalid (e.g. `authEnabled: false`
   * on a non-loopback host).
   */
  readonly defaultSettings: (overrides?: SettingsOverrides) => GatewaySettings
}

/**
 * The declared settings, defaults and checks of `groups` (the gateway-wide
 * group and each subsystem's: src/app/settings.ts gives the root's list).
 * A setting declared twice throws.
 */
export const deriveSettings = (groups: ReadonlyArray<SettingsGroup>): DerivedSettings => {
  const declared = groups.flatMap((group) =>
    Object.entries(group.settings).map(([key, setting]): DeclaredSetting => ({
      key: key as SettingKey,
      name: setting.name ?? key,
      subsystem: group.subsystem,
      setting
    }))
  )
  const rank = (key: string) => {
    const index = ISSUE_20_ORDER.indexOf(key)
    return index === -1 ? ISSUE_20_ORDER.length : index
  }
  const keys = new Set<string>()
  for (const { key, name } of declared) {
    if (keys.has(key) || keys.has(name)) throw new Error(`svc-gateway: the setting ${key} is declared twice`)
    keys.add(key)
  }
  // Array.prototype.sort is stable: settings not in the issue-20 order keep the order of the groups.
  const DECLARED_SETTINGS: ReadonlyArray<DeclaredSetting> = [...declared].sort((a, b) => rank(a.key) - rank(b.key))

  const DEFAULTS: SettingsDefaults = Object.fromEntries(DECLARED_SETTINGS.map(({ key, setting }) => [key, setting.default])) as never

  const validateSettings = (raw: RawSettings): SettingsValidation => {
    const filled: SettingsDefaults = { ...DEFAULTS, ...defined(raw) }
    const problems: Array<string> = []
    const settings: Record<string, unknown> = {}
    for (const { key, name, setting } of DECLARED_SETTINGS) {
      const value = setting.resolve(filled[key])
      if (Result.isFailure(value)) problems.push(value.failure)
      else settings[name] = value.success
    }
    // The cross-field rules.
    const exposed = !isLoopbackHost(filled.host)
    if (filled.auth === "off" && exposed) {
      problems.push(`SVC_AUTH=off is only allowed on a loopback bind, but the host is ${filled.host}; bind to 127.0.0.1 or turn auth on`)
    }
    const token = Option.getOrUndefined(filled.adminToken)
    if (exposed && filled.auth === "on" && token !== undefined && Redacted.value(token).trim().length < MIN_EXPOSED_ADMIN_TOKEN_LENGTH) {
      problems.push(
        `binding to the non-loopback address ${filled.host} requires an admin token of at least ${MIN_EXPOSED_ADMIN_TOKEN_LENGTH} characters (SVC_ADMIN_TOKEN)`
      )
    }
    if (filled.artifactStore === "s3" && Option.isNone(filled.s3Bucket)) {
      problems.push("SVC_ARTIFACT_STORE=s3 needs SVC_S3_BUCKET (the bucket artifact bytes are stored in)")
    }
    if (Option.isSome(filled.s3AccessKeyId) !== Option.isSome(filled.s3SecretAccessKey)) {
      problems.push("SVC_S3_ACCESS_KEY_ID and SVC_S3_SECRET_ACCESS_KEY are set together (or neither: the AWS SDK's default credentials)")
    }
    problems.push(...clusterProblems(filled))
    if (filled.headersTimeoutMs > filled.requestTimeoutMs) {
      problems.push("SVC_HEADERS_TIMEOUT_MS must not exceed SVC_REQUEST_TIMEOUT_MS (the headers are part of the request)")
    }
    if (problems.length > 0) return { ok: false, problems }
    return { ok: true, settings: { ...settings, isExposed: exposed } as unknown as GatewaySettings }
  }

  const defaultSettings = (overrides: SettingsOverrides = {}): GatewaySettings => {
    const o: Record<string, unknown> = defined(overrides)
    const raw: Record<string, unknown> = {}
    for (const { key, name, setting } of DECLARED_SETTINGS) {
      if (o[name] !== undefined) raw[key] = setting.fromValue(o[name])
    }
    if (typeof o.adminToken === "string") raw.adminToken = Option.some(Redacted.make(o.adminToken))
    const result = validateSettings(raw as RawSettings)
    if (!result.ok) throw new Error(`svc-gateway: invalid settings:\n${result.problems.map((p) => `  - ${p}`).join("\n")}`)
    return result.settings
  }

  return { DECLARED_SETTINGS, DEFAULTS, validateSettings, defaultSettings }
}
