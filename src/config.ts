/**
 * The `svc-gateway serve` settings on the command line and in the
 * environment, derived from the settings declarations (src/app/settings.ts
 * `DECLARED_SETTINGS`: layers/coreSettings.ts and each subsystem descriptor's
 * `services/<subsystem>/settings.ts`): one flag per setting, which wins over
 * its environment variable, which wins over the default. `validateSettings`
 * then checks each setting and the cross-field rules before anything
 * starts, so the gateway never runs half-configured.
 *
 * Values are read through `Config` (`Config.String(<ENV>)`), from a
 * `ConfigProvider` built from the flags given on the command line in front
 * of the ambient provider (the environment).
 *
 * A setting's flag never fails to parse: it yields a {@link SettingValue},
 * the decoded value or one line saying what is wrong (`invalid SVC_PORT
 * "abc": expected an integer 0..65535`, naming `--port` when the flag gave
 * the value). The CLI collects every problem ({@link collectSettings}) and
 * prints them, one line each, instead of effect/cli's usage dump. Each flag
 * also carries its {@link SettingDoc}, from which `--help` lists every
 * setting with its variable and default (src/cliOutput.ts).
 *
 * Adding a setting is one declaration in its subsystem's `settings.ts`;
 * nothing here changes.
 */
import { Config, ConfigProvider, Effect, Option, Result } from "effect"
import { Flag } from "effect/cli"
import { type RawSettings, type SettingKey } from "../layers/config.ts"
import { DECLARED_SETTINGS } from "./app/settings.ts"
import type { AnySetting, SettingKind } from "../layers/settings.ts"

export { LOG_LEVELS } from "../layers/config.ts"

/** How a setting reads in `--help` and the README table. */
export interface SettingDoc {
  /** `--port` */
  readonly flag: string
  /** `SVC_PORT` */
  readonly env: string
  /** The default as a user reads it: `8788`, `~/.svc`, `unset: no tracing`. */
  readonly default: string
  /** One line (`serve --help`). */
  readonly description: string
  /** What the value is: an integer, one of a few choices, or text (a path, a URL, a secret) judged elsewhere. */
  readonly kind: SettingKind
  /** The README's "Meaning" cell. */
  readonly doc: string
  /** The subsystem declaring it (`core`: the gateway-wide ones). */
  readonly subsystem: string
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

/**
 * The text of `setting`, read with `Config` from the flag's text (when the
 * flag was given, even blank) in front of the ambient `ConfigProvider` (the
 * environment, where an empty variable counts as unset), and the name of
 * the source it came from.
 */
const readText = (setting: AnySetting, fromFlag: Option.Option<string>) =>
  Effect.gen(function*() {
    const environment = yield* ConfigProvider.ConfigProvider
    const flags = ConfigProvider.fromUnknown(
      Option.match(fromFlag, { onNone: () => ({}), onSome: (text) => ({ [setting.env]: text }) }),
      { preserveEmptyStrings: true }
    )
    const text = yield* Effect.orDie(Config.option(Config.String(setting.env)).parse(ConfigProvider.orElse(flags, environment)))
    return Option.map(text, (raw) => ({ raw, source: Option.isSome(fromFlag) ? setting.flag : setting.env }))
  })

/**
 * The flag of one declared setting: its value read by {@link readText} and
 * decoded by the declaration, else its default. The flag itself only reads
 * text, so a bad value is a {@link SettingValue} failure naming its source,
 * never a parse error; a secret's value is never repeated in a problem.
 */
const settingFlag = <A>(setting: AnySetting, subsystem: string): SettingFlag<A> => {
  const flag = Flag.String(setting.flag.slice(2)).pipe(
    Flag.withMetavar(setting.metavar),
    Flag.withDescription(`${setting.summary} [default: ${setting.defaultText}]`),
    Flag.optional,
    Flag.mapEffect((fromFlag) =>
      Effect.map(readText(setting, fromFlag), (text): SettingValue<A> =>
        Option.match(text, {
          onNone: () => Result.succeed(setting.default as A),
          onSome: ({ raw, source }) =>
            Result.mapError(
              setting.decode(raw) as Result.Result<A, string>,
              (expected) => `invalid ${source}${setting.secret ? "" : ` ${JSON.stringify(raw)}`}: expected ${expected}`
            )
        }))
    )
  )
  const doc: SettingDoc = {
    flag: setting.flag,
    env: setting.env,
    default: setting.defaultText,
    description: setting.summary,
    kind: setting.kind,
    doc: setting.doc,
    subsystem
  }
  return Object.assign(flag, { setting: doc })
}

/** The `serve` command's settings, in `--help` order; each flag falls back to its environment variable, then its default. */
export const settingsFlags: { readonly [K in SettingKey]-?: SettingFlag<NonNullable<RawSettings[K]>> } = Object.fromEntries(
  DECLARED_SETTINGS.map(({ key, setting, subsystem }) => [key, settingFlag(setting, subsystem)])
) as never

/** Every setting's documentation, in {@link settingsFlags} order (for `--help` and the README table). */
export const settingsDocs: ReadonlyArray<SettingDoc> = Object.values<SettingFlag<unknown>>(settingsFlags).map((flag) => flag.setting)

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
