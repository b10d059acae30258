/**
 * The `CLI` executor (issue 12 "Executors"; issue 20 §2;
 * docs/workflow-executors.md "CLI", "Sandbox"): runs one program, never
 * through a shell, inside the sandbox chosen at start ({@link CliSandbox}),
 * in a fresh working directory per attempt outside `$SVC_HOME` (removed
 * when the attempt ends).
 *
 * - args `{argv: string[]}` or `{cmd: string, args?: string[]}`.
 * - result `{exit_code, signal, stdout, stderr, stdout_truncated, stderr_truncated}`;
 *   each stream keeps its first {@link MAX_CLI_OUTPUT_BYTES} bytes (UTF-8).
 * - the child's environment is only `PATH`, `LANG`, `LC_ALL`, `TZ` (when set)
 *   and `HOME` = the working directory: the gateway's secrets never reach it.
 * - at the attempt's timeout (or when the attempt is interrupted) the
 *   process, and its process group on POSIX, is killed with SIGKILL.
 * - fails `unsupported_action` when not enabled (`SVC_CLI_ENABLED=1`),
 *   `sandbox_unavailable` when no sandbox works (and `SVC_CLI_UNSANDBOXED`
 *   is not `1`), `invalid_action`, `spawn_error` (program not on `PATH`,
 *   working directory not creatable), `timeout` (with the output so far), or
 *   `exit_code` (with the result) when the exit code is not 0 and
 *   `postcondition.status` does not name it.
 *
 * @module
 */
import { Effect } from "effect"
import type { ActionPrimitive } from "../../planner/schema.ts"
import { AttemptFailed, type AttemptContext, type AttemptOutcome } from "../StepExecutor.ts"
import { AttemptArtifacts, type StoreAttemptArtifact } from "./AttemptArtifacts.ts"
import { childEnv, type CliResult, findProgram, runProcess } from "./childProcess.ts"
import { CliSandbox } from "./CliSandbox.ts"
import { parsePostcondition, sameStatus } from "./postconditions.ts"
import { defineExecutor } from "./registry.ts"
import type { ActionExecutor } from "./types.ts"

export { type CliResult, MAX_CLI_OUTPUT_BYTES } from "./childProcess.ts"

/** Most arguments, and the longest argument, accepted. */
export const MAX_ARGV = 1024
export const MAX_ARG_LENGTH = 32 * 1024

const isStringArray = (u: unknown): u is ReadonlyArray<string> => Array.isArray(u) && u.every((a) => typeof a === "string")

/** The argv of `args` (`{argv}` or `{cmd, args?}`), or what is wrong. */
export const argvOf = (args: Readonly<Record<string, unknown>>): ReadonlyArray<string> | string => {
  let argv: ReadonlyArray<string>
  if (args.argv !== undefined) {
    if (!isStringArray(args.argv) || args.argv.length === 0) return "CLI args.argv must be a non-empty array of strings"
    argv = args.argv
  } else if (typeof args.cmd === "string") {
    if (args.args !== undefined && !isStringArray(args.args)) return "CLI args.args must be an array of strings"
    argv = [args.cmd, ...(args.args as ReadonlyArray<string> | undefined ?? [])]
  } else {
    return "CLI args need argv: string[] or cmd: string with args?: string[]"
  }
  if (argv[0]!.trim() === "") return "CLI command must not be empty"
  if (argv.length > MAX_ARGV) return `CLI takes at most ${MAX_ARGV} arguments`
  if (argv.some((a) => a.length > MAX_ARG_LENGTH || a.includes("\0"))) {
    return `CLI arguments must be at most ${MAX_ARG_LENGTH} characters without NUL`
  }
  return argv
}

/**
 * Stores a process's output as a `log` artifact of the attempt (text: its
 * stdout, then its stderr, each under a header line; label `cli`; metadata
 * `{exit_code, signal, stdout_truncated, stderr_truncated}`).
 */
const storeLog = (artifacts: StoreAttemptArtifact | undefined, context: AttemptContext, result: CliResult) =>
  artifacts === undefined ? Effect.succeed({}) : Effect.map(
    artifacts(context, {
      kind: "log",
      bytes: new TextEncoder().encode(`--- stdout ---\n${result.stdout}\n--- stderr ---\n${result.stderr}\n`),
      mime_type: "text/plain; charset=utf-8",
      labels: ["cli"],
      metadata: {
        exit_code: result.exit_code,
        signal: result.signal,
        stdout_truncated: result.stdout_truncated,
        stderr_truncated: result.stderr_truncated
      }
    }),
    (ref) => (ref === undefined ? {} : { artifacts: [ref] })
  )

/**
 * The `CLI` executor over the sandbox chosen at start; the output of every
 * process that ran (exited or killed at the time limit) is stored through
 * `artifacts` as a `log` artifact listed in the outcome.
 */
export const makeCliExecutor = (sandbox: CliSandbox["Service"], artifacts?: StoreAttemptArtifact): ActionExecutor =>
  Effect.fnUntraced(function*(action: ActionPrimitive, context: AttemptContext) {
    if (sandbox.kind === "disabled" || sandbox.kind === "unavailable") {
      return yield* new AttemptFailed({
        code: sandbox.kind === "disabled" ? "unsupported_action" : "sandbox_unavailable",
        message: sandbox.reason ?? "CLI steps are off"
      })
    }
    const argv = argvOf(action.args)
    if (typeof argv === "string") return yield* new AttemptFailed({ code: "invalid_action", message: argv })
    const postcondition = parsePostcondition(action.postcondition)
    if (typeof postcondition === "string") return yield* new AttemptFailed({ code: "invalid_action", message: postcondition })
    const program = yield* Effect.promise(() => findProgram(argv[0]!, process.env.PATH))
    if (program === undefined) {
      return yield* new AttemptFailed({ code: "spawn_error", message: `cannot start ${argv[0]}: ENOENT (not found on PATH)` })
    }
    const ended = yield* Effect.scoped(Effect.flatMap(
      sandbox.workDirectory,
      (cwd) =>
        runProcess(sandbox.command([program, ...argv.slice(1)], cwd), {
          cwd,
          env: childEnv(cwd),
          timeoutMs: context.timeout_ms,
          name: argv[0]
        })
    )).pipe(Effect.mapError((message) => new AttemptFailed({ code: "spawn_error", message })))
    switch (ended._tag) {
      case "spawn_error":
        return yield* new AttemptFailed({ code: "spawn_error", message: ended.message })
      case "timeout":
        return yield* new AttemptFailed({
          code: "timeout",
          message: `${argv[0]} did not finish within ${context.timeout_ms} ms and was killed`,
          result: ended.result,
          ...(yield* storeLog(artifacts, context, ended.result))
        })
      case "exited": {
        const { result } = ended
        const log = yield* storeLog(artifacts, context, result)
        const expected = postcondition?.status !== undefined && sameStatus(postcondition.status, result.exit_code ?? undefined)
        if (result.exit_code !== 0 && !expected) {
          return yield* new AttemptFailed({
            code: "exit_code",
            message: result.exit_code === null
              ? `${argv[0]} was ended by ${result.signal ?? "a signal"}`
              : `${argv[0]} exited with code ${result.exit_code}`,
            result,
            ...log
          })
        }
        return { result, ...log } satisfies AttemptOutcome as AttemptOutcome
      }
    }
  })

/** The `CLI` executor, in the environment's `CliSandbox` (the one `CliSandbox.layer` chose at start), storing logs through {@link AttemptArtifacts}. */
export const CliExecutor = defineExecutor({
  kinds: ["CLI"],
  make: Effect.gen(function*() {
    return makeCliExecutor(yield* CliSandbox, yield* AttemptArtifacts)
  })
})
