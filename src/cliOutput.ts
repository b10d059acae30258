/**
 * What the `svc-gateway` CLI prints besides a command's own output:
 *
 * - `--help` at the top level lists every `serve` setting with its
 *   environment variable, flag and default, generated from the settings
 *   declarations (layers/coreSettings.ts and each subsystem's
 *   `services/<subsystem>/settings.ts`, through src/config.ts
 *   `settingsDocs`), after effect/cli's help;
 * - an invalid invocation prints the usage only when the command line holds
 *   something unknown (a flag, a subcommand, an extra argument); any other
 *   problem (a missing or repeated flag, a bad value) is one line on stderr;
 * - {@link reportProblems} prints problems the CLI found itself (invalid
 *   settings, an unusable `SVC_HOME`), one line each, and fails with
 *   {@link Reported} so nothing prints them twice.
 */
import { Console, Effect, Schema } from "effect"
import { type CliError, CliOutput } from "effect/cli"
import { settingsDocs } from "./config.ts"

/** The prefix of every line the CLI prints about a problem. */
export const PROGRAM = "svc-gateway"

/** A failure whose description has already been printed (the CLI exits 1 without printing more). */
export class Reported extends Schema.TaggedError<Reported>()("Reported", { problems: Schema.Array(Schema.String) }) {}

/** Prints each problem as one `svc-gateway: <problem>` line on stderr, then fails with {@link Reported}. */
export const reportProblems = (problems: ReadonlyArray<string>): Effect.Effect<never, Reported> =>
  Effect.andThen(
    Effect.forEach(problems, (problem) => Console.error(`${PROGRAM}: ${problem}`), { discard: true }),
    Effect.fail(new Reported({ problems }))
  )

/**
 * The SETTINGS section of the top-level help: one row per setting of
 * `svc-gateway serve` (variable, flag, default), in declaration order.
 */
export const settingsHelp = (): string => {
  const envWidth = Math.max(...settingsDocs.map((s) => s.env.length))
  const flagWidth = Math.max(...settingsDocs.map((s) => s.flag.length))
  return [
    "SETTINGS (svc-gateway serve: a flag wins over its environment variable, which wins over the default; svc-gateway serve --help describes each)",
    ...settingsDocs.map((s) => `  ${s.env.padEnd(envWidth)}  ${s.flag.padEnd(flagWidth)}  ${s.default}`)
  ].join("\n")
}

/** Errors that mean "this command line is not understood": the usage helps there. */
const USAGE_ERRORS: ReadonlySet<string> = new Set(["UnrecognizedOption", "UnknownSubcommand", "UnexpectedArgument"])

const oneLine = (error: CliError.NonShowHelpErrors, commandPath: ReadonlyArray<string>): string =>
  `${PROGRAM}: ${error.message.split("\n")[0]} (see ${commandPath.join(" ")} --help)`

/**
 * effect/cli's presenter with the changes described in the module
 * documentation; help and version text are otherwise effect/cli's own.
 */
export const presenter: CliOutput.Presenter = {
  present: (event) => {
    switch (event._tag) {
      case "Help":
        return event.commandPath.length === 1
          ? Effect.andThen(CliOutput.defaultPresenter.present(event), Console.log(`\n${settingsHelp()}\n`))
          : CliOutput.defaultPresenter.present(event)
      case "InvalidInvocation":
        return event.errors.some((error) => USAGE_ERRORS.has(error._tag))
          ? CliOutput.defaultPresenter.present(event)
          : Effect.forEach(event.errors, (error) => Console.error(oneLine(error, event.commandPath)), { discard: true })
      case "Version":
        return CliOutput.defaultPresenter.present(event)
    }
  }
}
