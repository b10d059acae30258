/**
 * Where `CLI` steps run (issue 20 §2; docs/workflow-executors.md "Sandbox";
 * docs/operations.md "Status"): chosen once at start and shown in
 * `GET /status` as `features.cli_sandbox`.
 *
 * | kind | when | CLI steps |
 * |---|---|---|
 * | `disabled` | `SVC_CLI_ENABLED` is not `1` | fail `unsupported_action` |
 * | `bwrap` | `bwrap` is on `PATH` and a probe run through it succeeds | run in it |
 * | `unshare` | else `unshare`, `setpriv`, `mount` and `sh` are on `PATH` and a probe succeeds | run in it |
 * | `unsandboxed` | no sandbox works and `SVC_CLI_UNSANDBOXED=1` | run without one (they can read what the gateway's user can) |
 * | `unavailable` | no sandbox works | fail `sandbox_unavailable` (the start log says why) |
 *
 * Every attempt gets a fresh working directory `<work root>/<uuid>` (mode
 * 0700, owned by the user the step runs as), removed when the attempt ends;
 * the work root is a fresh directory under the system's temporary directory
 * (`TMPDIR`), outside every hidden path, removed at shutdown. What the
 * sandbox hides and how: `sandboxCommand.ts`.
 *
 * @module
 */
import { NodeServices } from "@effect/platform-node"
import { Context, Effect, FileSystem, Layer, type Scope } from "effect"
import { randomUUID } from "node:crypto"
import { realpathSync, statSync } from "node:fs"
import { homedir, tmpdir } from "node:os"
import * as path from "node:path"
import { GatewayConfig, type GatewaySettings } from "../../../layers/config.ts"
import { childEnv, findProgram, runProcess } from "./childProcess.ts"
import {
  type CliSandboxKind,
  type HiddenPath,
  hiddenParentOf,
  NOBODY,
  outermost,
  SANDBOX_KINDS,
  sandboxArgv,
  type SandboxKind,
  type SandboxPrograms
} from "./sandboxCommand.ts"

export { CLI_SANDBOX_KINDS, type CliSandboxKind } from "./sandboxCommand.ts"

/** How long the start probe may take, in milliseconds. */
export const PROBE_TIMEOUT_MS = 10_000

/** Options of {@link makeCliSandbox}. */
export interface CliSandboxOptions {
  /** `SVC_CLI_ENABLED=1`. */
  readonly enabled: boolean
  /** `SVC_CLI_UNSANDBOXED=1`: without a working sandbox, run steps without one. */
  readonly allowUnsandboxed: boolean
  /** Paths a step must not see: `$SVC_HOME`, the master key, the gateway user's home. Missing ones are skipped. */
  readonly hidden: ReadonlyArray<string>
  /** The sandboxes to try, in order; default: those of {@link SANDBOX_KINDS} found on `PATH`. Tests pass others. */
  readonly sandboxes?: ReadonlyArray<{ readonly kind: SandboxKind; readonly program: string }> | undefined
  /** Parent of the work root; default the system's temporary directory. */
  readonly tempDirectory?: string | undefined
}

/** The chosen sandbox. */
export class CliSandbox extends Context.Service<CliSandbox, {
  readonly kind: CliSandboxKind
  /** Why CLI steps do not run (kinds `disabled` and `unavailable`), else `undefined`. Holds no secret. */
  readonly reason: string | undefined
  /**
   * A fresh, empty working directory for one attempt (absolute path), owned
   * by the user the step runs as; removed with everything in it when the
   * scope closes. Fails when it cannot be created.
   */
  readonly workDirectory: Effect.Effect<string, string, Scope.Scope>
  /**
   * The argv to spawn (with `cwd` = `workDir`) that runs `argv` (its program
   * an absolute path) in the sandbox; `argv` itself when unsandboxed.
   */
  readonly command: (argv: ReadonlyArray<string>, workDir: string) => ReadonlyArray<string>
}>()("svc-gateway/workflow/CliSandbox") {
  /** Chosen from `GatewayConfig` ({@link optionsFromSettings}); needs a `FileSystem`. Probes at build. */
  static readonly layerNoDeps = Layer.effect(
    CliSandbox,
    Effect.flatMap(GatewayConfig, (settings) => makeCliSandbox(optionsFromSettings(settings)))
  )

  /** {@link CliSandbox.layerNoDeps} over the Node file system: one instance per graph (workflow and `/status` share it). */
  static readonly layer = CliSandbox.layerNoDeps.pipe(Layer.provide(NodeServices.layer))

  /** A sandbox chosen from explicit options (tests: no sandbox, another program). */
  static readonly layerWith = (options: CliSandboxOptions) =>
    Layer.effect(CliSandbox, makeCliSandbox(options)).pipe(Layer.provide(NodeServices.layer))
}

/** The options the settings give: hide `$SVC_HOME`, the master key and the gateway user's home directory. */
export const optionsFromSettings = (settings: GatewaySettings): CliSandboxOptions => ({
  enabled: settings.cliEnabled,
  allowUnsandboxed: settings.cliUnsandboxed,
  hidden: [settings.home, settings.secretsMasterKeyPath ?? path.join(settings.home, "secrets.master.key"), homedir()]
})

const realOrResolved = (p: string): string => {
  try {
    return realpathSync(p)
  } catch {
    return path.resolve(p)
  }
}

/** The hidden paths that exist now, outermost only, each with its type. */
const existingHidden = (hidden: ReadonlyArray<string>): ReadonlyArray<HiddenPath> =>
  outermost(hidden).flatMap((p) => {
    const info = statSync(p, { throwIfNoEntry: false })
    return info === undefined ? [] : [{ path: p, directory: info.isDirectory() }]
  })

const firstLine = (text: string): string => (text.split("\n").find((l) => l.trim() !== "") ?? "").trim().slice(0, 200)

/**
 * Chooses the sandbox (see the module documentation) and logs the choice:
 * info for a sandbox, a warning saying why for `unavailable` and
 * `unsandboxed`. The work root lives as long as the scope.
 */
export const makeCliSandbox = Effect.fnUntraced(function*(options: CliSandboxOptions) {
  const off = (kind: "disabled" | "unavailable", reason: string) =>
    CliSandbox.of({
      kind,
      reason,
      workDirectory: Effect.fail(reason),
      command: (argv) => argv
    })
  if (!options.enabled) return off("disabled", "CLI steps are disabled: start the gateway with SVC_CLI_ENABLED=1 to run them")

  const fs = yield* FileSystem.FileSystem
  const root = process.getuid?.() === 0
  const hidden = outermost(options.hidden.filter((p) => p.trim() !== "").map(realOrResolved).filter((p) => p !== "/"))
  const temp = realOrResolved(options.tempDirectory ?? tmpdir())

  const workRoot = yield* fs.makeTempDirectoryScoped({ directory: temp, prefix: "svc-gateway-cli-" }).pipe(Effect.orDie)
  // Root runs steps as nobody: it may pass through the root (not list it) to its own directory.
  if (root) yield* fs.chmod(workRoot, 0o711).pipe(Effect.orDie)

  const workDirectory = Effect.acquireRelease(
    Effect.gen(function*() {
      const dir = path.join(workRoot, randomUUID())
      yield* fs.makeDirectory(dir, { mode: 0o700 })
      return dir
    }),
    (dir) => Effect.ignore(fs.remove(dir, { recursive: true, force: true }))
  ).pipe(Effect.mapError(() => "cannot create the step's working directory"))

  const sandboxed = (programs: SandboxPrograms) =>
    CliSandbox.of({
      kind: programs.kind,
      reason: undefined,
      workDirectory: root
        ? Effect.tap(workDirectory, (dir) =>
          fs.chown(dir, NOBODY.uid, NOBODY.gid).pipe(Effect.mapError(() => "cannot create the step's working directory")))
        : workDirectory,
      command: (argv, workDir) => sandboxArgv(programs, { root, hidden: existingHidden(hidden), workDir }, argv)
    })

  const failures: Array<string> = []
  const inside = hiddenParentOf(temp, hidden)
  if (inside !== undefined) {
    failures.push(`the temporary directory ${temp} is inside ${inside}, which steps must not see; set TMPDIR to a directory outside it`)
  } else if (process.platform !== "linux") {
    failures.push(`sandboxes need Linux namespaces, this is ${process.platform}`)
  } else {
    const PATH = process.env.PATH
    const find = (name: string) => Effect.promise(() => findProgram(name, PATH))
    const found = options.sandboxes ?? (yield* Effect.forEach(SANDBOX_KINDS, (kind) =>
      Effect.map(find(kind), (program) => program === undefined ? [] : [{ kind, program }]))).flat()
    if (found.length === 0) failures.push("neither bwrap nor unshare is on PATH")
    const setpriv = yield* find("setpriv")
    const mount = yield* find("mount")
    const sh = yield* find("sh")
    const probeProgram = yield* find("true")
    for (const { kind, program } of found) {
      const needs = kind === "unshare" ? { setpriv, mount, sh } : root ? { setpriv } : {}
      const missing = Object.entries(needs).filter(([, p]) => p === undefined).map(([name]) => name)
      if (missing.length > 0 || probeProgram === undefined) {
        failures.push(`${kind}: ${[...missing, ...(probeProgram === undefined ? ["true"] : [])].join(", ")} not on PATH`)
        continue
      }
      const candidate = sandboxed({ kind, program, setpriv: setpriv ?? "", mount: mount ?? "", sh: sh ?? "" })
      const ended = yield* Effect.scoped(Effect.flatMap(
        candidate.workDirectory,
        (dir) => runProcess(candidate.command([probeProgram], dir), { cwd: dir, env: childEnv(dir), timeoutMs: PROBE_TIMEOUT_MS })
      )).pipe(Effect.catch((message) => Effect.succeed({ _tag: "spawn_error" as const, message })))
      if (ended._tag === "exited" && ended.result.exit_code === 0) {
        yield* Effect.logInfo(`CLI steps run in a sandbox (${kind})`).pipe(
          Effect.annotateLogs({ cli_sandbox: kind, hidden: hidden.join(", ") })
        )
        return candidate
      }
      failures.push(
        ended._tag === "spawn_error"
          ? `${kind}: ${ended.message}`
          : `${kind}: ${firstLine(ended.result.stderr) || (ended._tag === "timeout" ? "the probe timed out" : `the probe exited with ${ended.result.exit_code ?? ended.result.signal}`)}`
      )
    }
  }
  const why = failures.join("; ")
  if (!options.allowUnsandboxed) {
    const reason = `CLI steps are off: no sandbox is available (${why}); install bubblewrap (bwrap) or util-linux (unshare), or set SVC_CLI_UNSANDBOXED=1 to run them without one`
    yield* Effect.logWarning(reason).pipe(Effect.annotateLogs({ cli_sandbox: "unavailable" }))
    return off("unavailable", reason)
  }
  yield* Effect.logWarning(
    `CLI steps run WITHOUT a sandbox (SVC_CLI_UNSANDBOXED=1; ${why}): a step can read every file and process the gateway's user can, the gateway's environment and secrets included`
  ).pipe(Effect.annotateLogs({ cli_sandbox: "unsandboxed" }))
  return CliSandbox.of({ kind: "unsandboxed", reason: undefined, workDirectory, command: (argv) => argv })
})
