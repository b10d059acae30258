/**
 * The `svc-gateway` command tree (effect/cli): `serve`, `node`,
 * `snapshot export|import` and `plugins lock`, and {@link runCli}, which runs it the way the
 * bundled CLI does (src/main.ts): with effect/cli's built-in global flags
 * except `--log-level` (a `serve` setting here, `SVC_LOG_LEVEL`, any case)
 * and with the presenter of src/cliOutput.ts.
 *
 * Every problem the CLI finds is one line on stderr and exit code 1:
 * invalid settings (each naming its variable or flag, the value and what is
 * accepted), an unusable `SVC_HOME`, a failed start.
 */
import { Cause, Config, Console, Effect, Layer, Option, Redacted, Result } from "effect"
import { Argument, CliConfig, CliError, CliOutput, Command, Flag, GlobalFlag } from "effect/cli"
import { join } from "node:path"
import { defaultHome, GATEWAY_VERSION } from "../layers/config.ts"
import { validateSettings } from "./app/settings.ts"
import { PROGRAM, presenter, Reported, reportProblems } from "./cliOutput.ts"
import type { SnapshotTarget } from "./snapshot.ts"
import { collectSettings, type SettingValue, settingsFlags } from "./config.ts"

const describeFailure = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const e = error as { _tag?: string; message?: string; cause?: { message?: string; cause?: { message?: string } } }
    const detail = e.cause?.cause?.message ?? e.cause?.message
    return `${e._tag ?? "Error"}: ${e.message ?? String(error)}${detail && !(e.message ?? "").includes(detail) ? ` (${detail})` : ""}`
  }
  return String(error)
}

/** The decoded settings values, or every problem printed (one line each) and a {@link Reported} failure. */
const settingsOrReport = <R extends Record<string, SettingValue<unknown>>>(values: R) => {
  const collected = collectSettings(values)
  return Result.isSuccess(collected) ? Effect.succeed(collected.success) : reportProblems(collected.failure)
}

const serveCommand = Command.make("serve", settingsFlags, (flags) =>
  Effect.gen(function*() {
    const raw = yield* settingsOrReport(flags)
    const result = validateSettings(raw)
    if (!result.ok) return yield* reportProblems(result.problems)
    // Loaded on demand: only `serve` needs the server graph.
    const { serve } = yield* Effect.promise(() => import("./serve.ts"))
    return yield* serve(result.settings).pipe(
      Effect.catch((error) =>
        reportProblems([error._tag === "HomeNotWritable" ? error.message : `failed to start: ${describeFailure(error)}`])
      )
    )
  })).pipe(Command.withDescription("Run the gateway (HTTP API on SVC_HOST:SVC_PORT)"))

const nodeCommand = Command.make("node", {
  url: Flag.String("url").pipe(
    Flag.withDescription("Gateway base URL (SVC_GATEWAY_URL) [default: http://127.0.0.1:$SVC_PORT, i.e. http://127.0.0.1:8788 when SVC_PORT is unset]"),
    Flag.withFallbackConfig(Config.String("SVC_GATEWAY_URL")),
    Flag.optional
  ),
  token: Flag.Redacted("token").pipe(
    Flag.withDescription(
      "Bootstrap token until the node is paired: admin or node device token (SVC_NODE_TOKEN, else SVC_ADMIN_TOKEN); optional once a scoped token is stored"
    ),
    Flag.withFallbackConfig(Config.Redacted("SVC_NODE_TOKEN").pipe(Config.orElse(() => Config.Redacted("SVC_ADMIN_TOKEN")))),
    Flag.optional
  ),
  identity: Flag.String("identity").pipe(
    Flag.withDescription(
      "Device identity file, created on first run (mode 0600); the pairing's scoped token is kept in <identity>.token [default: $SVC_HOME/node-identity.json, i.e. ~/.svc/node-identity.json when SVC_HOME is unset]"
    ),
    Flag.optional
  ),
  // The gateway's own settings, read from SVC_PORT / SVC_HOME (or the hidden --port / --home) for the defaults above.
  gatewayPort: Flag.withHidden(settingsFlags.port),
  home: Flag.withHidden(settingsFlags.home)
}, (options) =>
  Effect.gen(function*() {
    const { gatewayPort, home } = yield* settingsOrReport({ gatewayPort: options.gatewayPort, home: options.home })
    if (Option.isNone(options.url) && gatewayPort === 0) {
      return yield* reportProblems(["SVC_PORT is 0 (any free port), so the gateway's URL is unknown: pass --url or set SVC_GATEWAY_URL"])
    }
    const url = Option.getOrElse(options.url, () => `http://127.0.0.1:${gatewayPort}`)
    const identityPath = Option.getOrElse(options.identity, () => join(Option.getOrElse(home, defaultHome), "node-identity.json"))
    const token = Option.getOrUndefined(Option.map(options.token, Redacted.value))
    const client = yield* Effect.tryPromise({
      // Loaded on demand so `serve` does not load the client SDK.
      try: () => import("./client/demoNode.ts").then(({ runDemoNode }) => runDemoNode({ url, token, identityPath })),
      catch: (error) => error
    }).pipe(Effect.catch((error) => reportProblems([`node: ${(error as Error).message}`])))
    yield* Console.log(`demo node connected to ${url} (identity ${identityPath}); answering task.execute with an echo (Ctrl-C to stop)`)
    return yield* Effect.never.pipe(Effect.ensuring(Effect.promise(() => client.close())))
  })).pipe(Command.withDescription("Run a demo node: connects over WebSocket, advertises demo.echo and answers task.execute"))

/** `--home` and `--database-url` as `serve` reads them: the database a snapshot command works on. */
const databaseFlags = { home: settingsFlags.home, databaseUrl: settingsFlags.databaseUrl }
const snapshotTarget = (flags: { readonly home: SettingValue<Option.Option<string>>; readonly databaseUrl: SettingValue<Option.Option<string>> }) =>
  Effect.map(settingsOrReport({ home: flags.home, databaseUrl: flags.databaseUrl }), (values) => ({
    home: Option.getOrElse(values.home, defaultHome),
    databaseUrl: Option.getOrUndefined(values.databaseUrl)?.trim() || undefined
  }))
/**
 * Runs a snapshot command with the target database and the module (loaded on demand, like `serve`); the module
 * prints its own failures (`SnapshotCommandFailed`), which end the CLI as {@link Reported}.
 */
const withSnapshotModule = <A, E>(
  flags: { readonly home: SettingValue<Option.Option<string>>; readonly databaseUrl: SettingValue<Option.Option<string>> },
  f: (target: SnapshotTarget, module: typeof import("./snapshot.ts")) => Effect.Effect<A, E>
) =>
  Effect.gen(function*() {
    const target = yield* snapshotTarget(flags)
    const module = yield* Effect.promise(() => import("./snapshot.ts"))
    return yield* f(target, module).pipe(
      Effect.catch((error) => Effect.fail(error instanceof module.SnapshotCommandFailed ? new Reported({ problems: [error.message] }) : error))
    )
  })

const snapshotExportCommand = Command.make("export", {
  ...databaseFlags,
  tables: Flag.String("tables").pipe(Flag.withDescription("Comma-separated table names (default: every table of the snapshot set)"), Flag.optional),
  out: Flag.String("out").pipe(Flag.withDescription("Write the bundle to this file (mode 0600) instead of stdout"), Flag.optional)
}, (flags) =>
  withSnapshotModule(flags, (target, { exportSnapshot }) =>
    exportSnapshot(target, { tables: Option.getOrUndefined(flags.tables), out: Option.getOrUndefined(flags.out) }))).pipe(
    Command.withDescription("Export every stateful table of the configured database as a svc.snapshot.v2 bundle (JSON)")
  )

const snapshotImportCommand = Command.make("import", {
  ...databaseFlags,
  file: Flag.String("file").pipe(Flag.withDescription("The bundle to import (svc.snapshot.v2 JSON)")),
  confirm: Flag.String("confirm").pipe(Flag.withDescription("Must be IMPORT"))
}, (flags) =>
  withSnapshotModule(flags, (target, { importSnapshot }) => importSnapshot(target, { file: flags.file, confirm: flags.confirm }))).pipe(
    Command.withDescription("Import a bundle into the configured database; every target table must be empty (all or nothing)")
  )

const snapshotCommand = Command.make("snapshot").pipe(
  Command.withDescription("Back up and restore the gateway's state (also from SQLite into PostgreSQL; docs/operations.md)"),
  Command.withSubcommands([snapshotExportCommand, snapshotImportCommand])
)

const pluginsLockCommand = Command.make("lock", {
  home: settingsFlags.home,
  source: Flag.String("source").pipe(Flag.withDescription("Where the plugin came from (recorded as the lock's source)"), Flag.optional),
  id: Argument.String("id").pipe(Argument.withDescription("The plugin's id: its directory under $SVC_HOME/plugins"))
}, (flags) =>
  Effect.gen(function*() {
    const { home } = yield* settingsOrReport({ home: flags.home })
    // Loaded on demand, like `serve`.
    const { lockPlugin, pluginsDirectory } = yield* Effect.promise(() => import("./pluginsLock.ts"))
    const { lock, path } = yield* lockPlugin(pluginsDirectory(Option.getOrElse(home, defaultHome)), flags.id, Option.getOrUndefined(flags.source)).pipe(
      Effect.catch((problem) => reportProblems([`plugins lock: ${problem}`]))
    )
    yield* Console.log(`locked plugin ${flags.id} ${lock.pinned_version}: integrity_sha256 ${lock.integrity_sha256} (${path})`)
  })).pipe(Command.withDescription("Record $SVC_HOME/plugins/<id>/plugin.lock.json: the digest of the plugin's files and its version"))

const pluginsCommand = Command.make("plugins").pipe(
  Command.withDescription("Manage the plugins of $SVC_HOME/plugins (docs/plugins.md)"),
  Command.withSubcommands([pluginsLockCommand])
)

/** The root command: `svc-gateway serve | node | snapshot | plugins`. */
export const root = Command.make("svc-gateway").pipe(
  Command.withDescription("svc-gateway: operator gateway for AI-agent platforms"),
  Command.withSubcommands([serveCommand, nodeCommand, snapshotCommand, pluginsCommand])
)

/**
 * effect/cli's built-in global flags without its `--log-level` (which
 * accepted only lowercase and ignored `SVC_LOG_LEVEL`): the log level is the
 * `serve` setting `--log-level` / `SVC_LOG_LEVEL`.
 */
const CliLive = Layer.mergeAll(
  CliConfig.layer({ builtIns: GlobalFlag.BuiltIns.filter((flag) => flag !== GlobalFlag.LogLevel) }),
  CliOutput.layerPresenter(presenter)
)

/** Failures that were already printed: by the presenter (usage errors), effect/cli itself, or {@link reportProblems}. */
const alreadyReported = (error: unknown): boolean => error instanceof Reported || CliError.isCliError(error)

/**
 * Runs the CLI on `args` (without the program name). Anything that fails
 * without having been described is printed as one `svc-gateway: …` line
 * before the failure propagates, so the CLI never exits 1 silently.
 */
export const runCli = (args: ReadonlyArray<string>) =>
  Command.runWith(root, { version: GATEWAY_VERSION })(args).pipe(
    Effect.tapCause((cause) => {
      if (Cause.hasInterruptsOnly(cause)) return Effect.void
      const failure = cause.reasons.find((r) => r._tag === "Fail" || r._tag === "Die")
      const error = failure === undefined ? undefined : failure._tag === "Fail" ? failure.error : failure.defect
      return alreadyReported(error) ? Effect.void : Console.error(`${PROGRAM}: ${describeFailure(error)}`)
    }),
    Effect.provide(CliLive)
  )
