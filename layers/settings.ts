/**
 * Declaring a setting once (issue 21 §1): its environment variable, its
 * `svc-gateway serve` flag, its default, what it accepts, its documentation
 * and how its text becomes the value services read from `GatewayConfig`.
 * Everything else is derived from the declarations: the `GatewaySettings`
 * type and `DEFAULTS` (layers/config.ts), the flags and the reading of the
 * environment through `Config` (src/config.ts), the settings table of
 * `--help` (src/cliOutput.ts) and the README's configuration table
 * (scripts/settingsTable.ts, `npm run docs:settings`).
 *
 * A subsystem declares its settings in its own folder, as one exported
 * group: `export const ApprovalsSettings = Setting.group("approvals", { approvalTtlSeconds: Setting.integer({...}) })`.
 * The record key is the setting's raw key (`RawSettings`, the flag's key);
 * `Setting.named("authEnabled", …)` reads it from `GatewaySettings` under another property than its key.
 *
 * Each value goes through three steps:
 * - `decode`: the text of the flag or the variable to the raw value, or what
 *   is accepted (`an integer 0..65535`); the CLI prints `invalid SVC_PORT
 *   "abc": expected an integer 0..65535`;
 * - `resolve`: the raw value (also given by programs, `validateSettings`)
 *   to the value in `GatewaySettings`, or the problem with it, one sentence
 *   naming the setting;
 * - `fromValue`: the inverse of `resolve`, for `defaultSettings` overrides.
 */
import { Option, Redacted, Result } from "effect"

/** What the value is: an integer, one of a few choices, or text (a path, a URL, a secret) judged by `resolve`. */
export type SettingKind = "integer" | "choice" | "text"

/**
 * One declared setting: raw values of type `Raw` (what the flag's text
 * decodes to, and what `RawSettings` holds), values of type `A` in
 * `GatewaySettings` under the property `N` (`never`: the record key).
 */
export interface Setting<Raw, A, N extends string = never> {
  /** The `GatewaySettings` property when it differs from the record key (`authEnabled` for `auth`). */
  readonly name?: N | undefined
  /** `SVC_PORT` */
  readonly env: string
  /** `--port` */
  readonly flag: string
  readonly kind: SettingKind
  /** The flag's metavar in `serve --help`: `integer`, `string`, `<on|off>`. */
  readonly metavar: string
  /** The raw value when neither the flag nor the variable is set. */
  readonly default: Raw
  /** The default as a user reads it: `8788`, `~/.svc`, `unset: no tracing`. */
  readonly defaultText: string
  /** One line for `svc-gateway serve --help` (names the variable). */
  readonly summary: string
  /** The README's "Meaning" cell (Markdown, one line). */
  readonly doc: string
  /** Never repeat the value in a problem. */
  readonly secret: boolean
  /** The flag's or variable's text to the raw value, or what is accepted. */
  readonly decode: (text: string) => Result.Result<Raw, string>
  /** The raw value to the setting's value, or the problem (a sentence naming the setting). */
  readonly resolve: (raw: Raw) => Result.Result<A, string>
  /** A value (a `defaultSettings` override) back to the raw value. */
  readonly fromValue: (value: A) => Raw
}

/** Any declared setting. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnySetting = Setting<any, any, any>

/** A subsystem's settings: its name (`workflow`), the file declaring them, and the declarations by raw key. */
export interface SettingsGroup<S extends Record<string, AnySetting> = Record<string, AnySetting>> {
  readonly subsystem: string
  readonly settings: S
}

/**
 * Every group of settings declarations, by group name, for the types
 * (layers/config.ts `GatewaySettings`, `SettingKey`, `RawSettings`): the file
 * declaring a group enters it here itself, next to the declaration, so that
 * no list of subsystems is kept for the types:
 *
 * ```ts
 * declare module "../../layers/settings.ts" {
 *   interface SettingsRegistry {
 *     readonly approvals: typeof ApprovalsSettings.settings
 *   }
 * }
 * ```
 *
 * The values come from the root's list (src/app/settings.ts: the core
 * settings and each subsystem descriptor's `settings`); test/app/subsystems.test.ts
 * keeps the two equal.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SettingsRegistry {}

/** The raw value type of a declaration. */
export type RawOf<S> = S extends Setting<infer Raw, infer _A, infer _N> ? Raw : never
/** The `GatewaySettings` value type of a declaration. */
export type ValueOf<S> = S extends Setting<infer _Raw, infer A, infer _N> ? A : never
/** The `GatewaySettings` property of the declaration `S` under the record key `K`. */
export type NameOf<S extends AnySetting, K> = [Exclude<S["name"], undefined>] extends [never] ? K : Exclude<S["name"], undefined>

/** The `GatewaySettings` properties of a record of declarations. */
export type SettingsOf<S extends Record<string, AnySetting>> = {
  readonly [K in keyof S as NameOf<S[K], K>]: ValueOf<S[K]>
}

/** The raw values of a record of declarations (each optional: absent means its default). */
export type RawSettingsOf<S extends Record<string, AnySetting>> = {
  readonly [K in keyof S]?: RawOf<S[K]>
}

interface Common {
  readonly env: string
  /** Without the dashes: `port`. */
  readonly flag: string
  readonly summary: string
  readonly doc: string
}

/** What {@link Setting.make} needs besides the common fields. */
type Rest<Raw, A> = Omit<Setting<Raw, A>, "name" | "env" | "flag" | "summary" | "doc" | "secret"> & {
  readonly secret?: boolean
}

const make = <Raw, A>(common: Common, rest: Rest<Raw, A>): Setting<Raw, A> => ({
  env: common.env,
  flag: `--${common.flag}`,
  // The flag's help names the variable, as a user looks it up either way.
  summary: common.summary.includes(common.env) ? common.summary : `${common.summary} (${common.env})`,
  doc: common.doc,
  secret: false,
  ...rest
})

/** Integers from `min` to `max` (no limit when absent), in decimal, as the CLI decodes them. */
const decodeInteger = (min: number, max: number | undefined) => {
  const expected = max === undefined ? `an integer >= ${min}` : `an integer ${min}..${max}`
  return (text: string): Result.Result<number, string> => {
    const trimmed = text.trim()
    const value = /^[+-]?\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN
    return Number.isSafeInteger(value) && value >= min && (max === undefined || value <= max)
      ? Result.succeed(value)
      : Result.fail(expected)
  }
}

/** One of `choices`, in any case (`INFO`, `info` and `Info` are `Info`). */
const decodeChoice = <C extends string>(choices: ReadonlyArray<C>) => {
  const expected = choices.length === 2 ? `${choices[0]} or ${choices[1]}` : `one of ${choices.join(", ")}`
  const byLowerCase = new Map(choices.map((c) => [c.toLowerCase(), c] as const))
  return (text: string): Result.Result<C, string> => {
    const choice = byLowerCase.get(text.trim().toLowerCase())
    return choice === undefined ? Result.fail(`${expected} (any case)`) : Result.succeed(choice)
  }
}

/** Blank text is unset. */
const decodeOptionalText = (text: string): Result.Result<Option.Option<string>, string> =>
  Result.succeed(text.trim() === "" ? Option.none() : Option.some(text))

/** The trimmed text, `undefined` when absent or blank. */
const trimmedOrUndefined = (raw: Option.Option<string>): string | undefined => Option.getOrUndefined(raw)?.trim() || undefined

/**
 * Declaring settings: constructors for each kind of value, and
 * {@link Setting.group} for a subsystem's record of them.
 */
export const Setting = {
  /** Any setting, every field given (`flag` without the dashes); the constructors below cover the usual kinds. */
  make: <Raw, A>(options: Common & Rest<Raw, A>): Setting<Raw, A> => {
    const { doc, env, flag, summary, ...rest } = options
    return make<Raw, A>({ doc, env, flag, summary }, rest)
  },

  /** `setting` read from `GatewaySettings` under `name` instead of its record key (`authEnabled` for `auth`). */
  named: <const N extends string, Raw, A>(name: N, setting: Setting<Raw, A>): Setting<Raw, A, N> => ({ ...setting, name }),

  /** The decoder of a choice among `values`, in any case: `expected one of …` / `expected a or b`. */
  decodeChoice,

  /**
   * An integer from `min` (default 1) to `max` (default: no limit).
   * Out of range given by a program: `problem(value)`, by default
   * `<ENV> must be an integer >= <min>` followed by `unit` (` (seconds)`).
   */
  integer: (options: Common & {
    readonly default: number
    readonly min?: number
    readonly max?: number
    readonly unit?: string
    readonly problem?: (value: number) => string
  }): Setting<number, number> => {
    const min = options.min ?? 1
    const problem = options.problem ??
      (() => `${options.env} must be an integer >= ${min}${options.unit === undefined ? "" : ` (${options.unit})`}`)
    return make(options, {
      kind: "integer",
      metavar: "integer",
      default: options.default,
      defaultText: String(options.default),
      decode: decodeInteger(min, options.max),
      resolve: (raw) =>
        Number.isInteger(raw) && raw >= min && (options.max === undefined || raw <= options.max)
          ? Result.succeed(raw)
          : Result.fail(problem(raw)),
      fromValue: (value) => value
    })
  },

  /** One of `values` (any case on the command line); the value is the choice itself. */
  choice: <const C extends string>(options: Common & {
    readonly values: ReadonlyArray<C>
    readonly default: NoInfer<C>
  }): Setting<C, C> =>
    make(options, {
      kind: "choice",
      metavar: `<${options.values.join("|")}>`,
      default: options.default,
      defaultText: options.default,
      decode: decodeChoice(options.values),
      resolve: Result.succeed,
      fromValue: (value) => value
    }),

  /** A switch written as two choices (`on`/`off`, `1`/`0`); the value is `true` for `on`. */
  toggle: <const C extends string>(options: Common & {
    readonly values: readonly [C, C]
    readonly on: NoInfer<C>
    readonly default: NoInfer<C>
  }): Setting<C, boolean> => {
    const off = options.values.find((v) => v !== options.on)!
    return make(options, {
      kind: "choice",
      metavar: `<${options.values.join("|")}>`,
      default: options.default,
      defaultText: options.default,
      decode: decodeChoice(options.values),
      resolve: (raw) => Result.succeed(raw === options.on),
      fromValue: (value) => (value ? options.on : off)
    })
  },

  /**
   * Required text with a default; `resolve` (default: the text as given)
   * checks and shapes it.
   */
  text: (options: Common & {
    readonly default: string
    readonly resolve?: (raw: string) => Result.Result<string, string>
  }): Setting<string, string> =>
    make(options, {
      kind: "text",
      metavar: "string",
      default: options.default,
      defaultText: options.default,
      decode: Result.succeed,
      resolve: options.resolve ?? Result.succeed,
      fromValue: (value) => value
    }),

  /**
   * Optional text (a path, a URL); blank counts as unset. `unset` says what
   * happens without it. The value is the trimmed text or `undefined`, unless
   * `resolve` says otherwise (checks it, or gives another value).
   */
  optionalText: <A = string | undefined>(options: Common & {
    readonly unset: string
    readonly resolve?: (raw: Option.Option<string>) => Result.Result<A, string>
    readonly fromValue?: (value: A) => Option.Option<string>
  }): Setting<Option.Option<string>, A> =>
    make(options, {
      kind: "text",
      metavar: "string",
      default: Option.none(),
      defaultText: options.unset,
      decode: decodeOptionalText,
      resolve: options.resolve ?? ((raw) => Result.succeed(trimmedOrUndefined(raw) as A)),
      fromValue: options.fromValue ?? ((value) => Option.fromUndefinedOr(value as string | undefined))
    }),

  /**
   * A secret (kept `Redacted`, never repeated in a problem or the help); the
   * value is the trimmed secret or `undefined`. `resolve` checks it.
   */
  secret: (options: Common & {
    readonly unset: string
    readonly resolve?: (raw: Option.Option<Redacted.Redacted<string>>) => Result.Result<Redacted.Redacted<string> | undefined, string>
  }): Setting<Option.Option<Redacted.Redacted<string>>, Redacted.Redacted<string> | undefined> =>
    make(options, {
      kind: "text",
      metavar: "string",
      default: Option.none(),
      defaultText: options.unset,
      secret: true,
      decode: (text) => Result.succeed(Option.some(Redacted.make(text))),
      resolve: options.resolve ??
        ((raw) => Result.succeed(Option.getOrUndefined(Option.map(raw, (t) => Redacted.make(Redacted.value(t).trim()))))),
      fromValue: Option.fromUndefinedOr
    }),

  /** A subsystem's settings, by raw key, in the order `--help` lists them. */
  group: <const S extends Record<string, AnySetting>>(subsystem: string, settings: S): SettingsGroup<S> => ({ subsystem, settings })
}

/** The trimmed text, `undefined` when absent or blank (what an optional text setting gives by default). */
export const optionalTextValue = trimmedOrUndefined
