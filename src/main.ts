/**
 * `svc-gateway` CLI (effect/cli). `svc-gateway serve` validates settings
 * (flags > environment > defaults, see `config.ts`), starts the gateway and
 * logs where it listens, which database it uses and where the admin token is
 * (never the token). Invalid settings or a failed start print what is wrong
 * and exit non-zero. SIGINT/SIGTERM drain in-flight requests, then close the
 * database.
 */
// Must come first: schemas built after this import decode through Effect's JIT
// compiler (about twice as fast as the interpreter; see docs/performance.md).
import "effect/schema/SchemaJITCompiler/enable"
import { NodeRuntime, NodeServices } from "@effect/platform-node"
import { Cause, Config, Console, Effect, Exit, Option, Redacted, References } from "effect"
import { Command, Flag } from "effect/cli"
import { homedir } from "node:os"
import { join } from "node:path"
import { validateSettings } from "../layers/config.ts"
import { logLevelConfig, settingsFlags } from "./config.ts"

const VERSION = "0.1.0"

const describeFailure = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const e = error as { _tag?: string; message?: string; cause?: { message?: string; cause?: { message?: string } } }
    const detail = e.cause?.cause?.message ?? e.cause?.message
    return `${e._tag ?? "Error"}: ${e.message ?? String(error)}${detail && !(e.message ?? "").includes(detail) ? ` (${detail})` : ""}`
  }
  return String(error)
}

const serveCommand = Command.make("serve", settingsFlags, (flags) =>
  Effect.gen(function*() {
    const envLevel = yield* logLevelConfig
    const logLevel = Option.isSome(envLevel) ? envLevel.value : yield* References.MinimumLogLevel
    const result = validateSettings({ ...flags, logLevel })
    if (!result.ok) {
      yield* Console.error(`svc-gateway: invalid configuration:\n${result.problems.map((p) => `  - ${p}`).join("\n")}`)
      return yield* Effect.fail(new Error("invalid configuration"))
    }
    // Loaded on demand: only `serve` needs the server graph.
    const { serve } = yield* Effect.promise(() => import("./serve.ts"))
    return yield* serve(result.settings).pipe(
      Effect.catch((error) =>
        Console.error(`svc-gateway: failed to start: ${describeFailure(error)}`).pipe(
          Effect.andThen(Effect.fail(error))
        )
      )
    )
  })).pipe(Command.withDescription("Run the gateway (HTTP API on SVC_HOST:SVC_PORT)"))

const nodeCommand = Command.make("node", {
  url: Flag.String("url").pipe(
    Flag.withDescription("Gateway base URL (SVC_GATEWAY_URL)"),
    Flag.withFallbackConfig(Config.String("SVC_GATEWAY_URL")),
    Flag.withDefault("http://127.0.0.1:8788")
  ),
  token: Flag.Redacted("token").pipe(
    Flag.withDescription(
      "Bootstrap token until the node is paired: admin or node device token (SVC_NODE_TOKEN, else SVC_ADMIN_TOKEN); optional once a scoped token is stored"
    ),
    Flag.withFallbackConfig(Config.Redacted("SVC_NODE_TOKEN").pipe(Config.orElse(() => Config.Redacted("SVC_ADMIN_TOKEN")))),
    Flag.optional
  ),
  identity: Flag.String("identity").pipe(
    Flag.withDescription("Device identity file (created on first run, mode 0600); the pairing's scoped token is kept in <identity>.token"),
    Flag.withDefault(join(homedir(), ".svc", "node-identity.json"))
  )
}, (options) =>
  Effect.gen(function*() {
    const token = Option.getOrUndefined(Option.map(options.token, Redacted.value))
    const client = yield* Effect.tryPromise({
      // Loaded on demand so `serve` does not load the client SDK.
      try: () => import("./client/demoNode.ts").then(({ runDemoNode }) => runDemoNode({ url: options.url, token, identityPath: options.identity })),
      catch: (error) => new Error(`svc-gateway node: ${(error as Error).message}`)
    })
    yield* Console.log("demo node connected; answering task.execute with an echo (Ctrl-C to stop)")
    return yield* Effect.never.pipe(Effect.ensuring(Effect.promise(() => client.close())))
  })).pipe(Command.withDescription("Run a demo node: connects over WebSocket, advertises demo.echo and answers task.execute"))

/** `--home` and `--database-url` as `serve` reads them: the database a snapshot command works on. */
const databaseFlags = { home: settingsFlags.home, databaseUrl: settingsFlags.databaseUrl }
const snapshotTarget = (flags: { readonly home: Option.Option<string>; readonly databaseUrl: Option.Option<string> }) => ({
  home: Option.getOrElse(flags.home, () => join(homedir(), ".svc")),
  databaseUrl: Option.getOrUndefined(flags.databaseUrl)?.trim() || undefined
})
// Loaded on demand, like `serve`.
const snapshotModule = Effect.promise(() => import("./snapshot.ts"))

const snapshotExportCommand = Command.make("export", {
  ...databaseFlags,
  tables: Flag.String("tables").pipe(Flag.withDescription("Comma-separated table names (default: every table of the snapshot set)"), Flag.optional),
  out: Flag.String("out").pipe(Flag.withDescription("Write the bundle to this file (mode 0600) instead of stdout"), Flag.optional)
}, (flags) =>
  Effect.flatMap(snapshotModule, ({ exportSnapshot }) =>
    exportSnapshot(snapshotTarget(flags), { tables: Option.getOrUndefined(flags.tables), out: Option.getOrUndefined(flags.out) }))).pipe(
    Command.withDescription("Export every stateful table of the configured database as a svc.snapshot.v2 bundle (JSON)")
  )

const snapshotImportCommand = Command.make("import", {
  ...databaseFlags,
  file: Flag.String("file").pipe(Flag.withDescription("The bundle to import (svc.snapshot.v2 JSON)")),
  confirm: Flag.String("confirm").pipe(Flag.withDescription("Must be IMPORT"))
}, (flags) =>
  Effect.flatMap(snapshotModule, ({ importSnapshot }) =>
    importSnapshot(snapshotTarget(flags), { file: flags.file, confirm: flags.confirm }))).pipe(
    Command.withDescription("Import a bundle into the configured database; every target table must be empty (all or nothing)")
  )

const snapshotCommand = Command.make("snapshot").pipe(
  Command.withDescription("Back up and restore the gateway's state (also from SQLite into PostgreSQL; docs/operations.md)"),
  Command.withSubcommands([snapshotExportCommand, snapshotImportCommand])
)

const root = Command.make("svc-gateway").pipe(
  Command.withDescription("svc-gateway: operator gateway for AI-agent platforms"),
  Command.withSubcommands([serveCommand, nodeCommand, snapshotCommand])
)

Command.run(root, { version: VERSION }).pipe(
  Effect.provide(NodeServices.layer),
  (effect) =>
    NodeRuntime.runMain(effect, {
      disableErrorReporting: true,
      // A signal-driven shutdown (interrupt only) is a clean exit: 0. Failures exit 1.
      teardown: (exit, onExit) => onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : 0)
    })
)
