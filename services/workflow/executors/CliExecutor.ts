/**
 * The `CLI` executor (issue 12 "Executors"; docs/workflow-executors.md): runs
 * one program with `node:child_process` `spawn`, never through a shell, in
 * the run's working directory `<workspacesRoot>/<run_id>` (created on demand).
 *
 * - args `{argv: string[]}` or `{cmd: string, args?: string[]}`.
 * - result `{exit_code, signal, stdout, stderr, stdout_truncated, stderr_truncated}`;
 *   each stream keeps its first {@link MAX_CLI_OUTPUT_BYTES} bytes (UTF-8).
 * - the child's environment is only `PATH`, `LANG`, `LC_ALL`, `TZ` (when set)
 *   and `HOME` = the working directory: the gateway's secrets never reach it.
 * - at the attempt's timeout (or when the attempt is interrupted) the
 *   process, and its process group on POSIX, is killed with SIGKILL.
 * - fails `unsupported_action` when not enabled (`SVC_CLI_ENABLED=1`),
 *   `invalid_action`, `spawn_error`, `timeout` (with the output so far), or
 *   `exit_code` (with the result) when the exit code is not 0 and
 *   `postcondition.status` does not name it.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdir } from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"
import type { ActionPrimitive } from "../../planner/schema.ts"
import { AttemptFailed, type AttemptContext, type AttemptOutcome } from "../StepExecutor.ts"
import { parsePostcondition, sameStatus } from "./postconditions.ts"
import type { ActionExecutor } from "./types.ts"

/** Most bytes kept of each of stdout and stderr (64 KiB). */
export const MAX_CLI_OUTPUT_BYTES = 64 * 1024

/** Most arguments, and the longest argument, accepted. */
export const MAX_ARGV = 1024
export const MAX_ARG_LENGTH = 32 * 1024

/** The result of a `CLI` attempt. */
export interface CliResult {
  /** `null` when the process was ended by a signal. */
  readonly exit_code: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly stdout_truncated: boolean
  readonly stderr_truncated: boolean
}

/** Options of the `CLI` executor. */
export interface CliExecutorOptions {
  /** Only when true does it run anything (`SVC_CLI_ENABLED=1`). */
  readonly enabled: boolean
  /** Parent of the per-run working directories (`$SVC_HOME/workspaces`). */
  readonly workspacesRoot: string
}

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

/** A run id usable as one directory name. */
const SAFE_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/

/** A stream's first `max` bytes; the rest is read and dropped. */
const capture = (max: number) => {
  const chunks: Array<Buffer> = []
  let size = 0
  let truncated = false
  return {
    push: (chunk: Buffer) => {
      const room = max - size
      if (room <= 0) {
        truncated = true
        return
      }
      if (chunk.length > room) truncated = true
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk
      chunks.push(kept)
      size += kept.length
    },
    text: () => Buffer.concat(chunks, size).toString("utf8"),
    truncated: () => truncated
  }
}

const childEnv = (cwd: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { HOME: cwd }
  for (const name of ["PATH", "LANG", "LC_ALL", "TZ", "SystemRoot"]) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return env
}

const killTree = (child: ChildProcess): void => {
  if (child.exitCode !== null || child.signalCode !== null) return
  try {
    if (process.platform !== "win32" && child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
    else child.kill("SIGKILL")
  } catch {
    try {
      child.kill("SIGKILL")
    } catch {
      // already gone
    }
  }
}

type Ended =
  | { readonly _tag: "exited"; readonly result: CliResult }
  | { readonly _tag: "timeout"; readonly result: CliResult }
  | { readonly _tag: "spawn_error"; readonly message: string }

/** Runs `argv` in `cwd` until it exits or `timeoutMs` passes (then kills it). */
const run = (argv: ReadonlyArray<string>, cwd: string, timeoutMs: number) =>
  Effect.callback<Ended>((resume) => {
    const stdout = capture(MAX_CLI_OUTPUT_BYTES)
    const stderr = capture(MAX_CLI_OUTPUT_BYTES)
    let timedOut = false
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd,
      env: childEnv(cwd),
      shell: false,
      stdio: ["ignore", "pipe", "pipe"],
      detached: process.platform !== "win32",
      windowsHide: true
    })
    const resultOf = (code: number | null, signal: NodeJS.Signals | null): CliResult => ({
      exit_code: code,
      signal,
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdout_truncated: stdout.truncated(),
      stderr_truncated: stderr.truncated()
    })
    const timer = setTimeout(() => {
      timedOut = true
      killTree(child)
    }, timeoutMs)
    child.stdout?.on("data", stdout.push)
    child.stderr?.on("data", stderr.push)
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      resume(Effect.succeed({ _tag: "spawn_error", message: `cannot start ${argv[0]}: ${error.code ?? error.message}` }))
    })
    child.once("close", (code, signal) => {
      clearTimeout(timer)
      const result = resultOf(code, signal)
      resume(Effect.succeed(timedOut ? { _tag: "timeout", result } : { _tag: "exited", result }))
    })
    // Interrupted (the run was cancelled): kill it.
    return Effect.sync(() => {
      clearTimeout(timer)
      killTree(child)
    })
  })

/** The `CLI` executor. */
export const makeCliExecutor = (options: CliExecutorOptions): ActionExecutor =>
  Effect.fnUntraced(function*(action: ActionPrimitive, context: AttemptContext) {
    if (!options.enabled) {
      return yield* new AttemptFailed({
        code: "unsupported_action",
        message: "CLI steps are disabled: start the gateway with SVC_CLI_ENABLED=1 to run them"
      })
    }
    const argv = argvOf(action.args)
    if (typeof argv === "string") return yield* new AttemptFailed({ code: "invalid_action", message: argv })
    const postcondition = parsePostcondition(action.postcondition)
    if (typeof postcondition === "string") return yield* new AttemptFailed({ code: "invalid_action", message: postcondition })
    if (!SAFE_SEGMENT.test(context.run_id)) {
      return yield* new AttemptFailed({ code: "invalid_action", message: "the run id cannot name a working directory" })
    }
    const cwd = path.join(path.resolve(options.workspacesRoot), context.run_id)
    yield* Effect.tryPromise({
      try: () => mkdir(cwd, { recursive: true, mode: 0o700 }),
      catch: () => new AttemptFailed({ code: "spawn_error", message: "cannot create the run's working directory" })
    })
    const ended = yield* run(argv, cwd, context.timeout_ms)
    switch (ended._tag) {
      case "spawn_error":
        return yield* new AttemptFailed({ code: "spawn_error", message: ended.message })
      case "timeout":
        return yield* new AttemptFailed({
          code: "timeout",
          message: `${argv[0]} did not finish within ${context.timeout_ms} ms and was killed`,
          result: ended.result
        })
      case "exited": {
        const { result } = ended
        const expected = postcondition?.status !== undefined && sameStatus(postcondition.status, result.exit_code ?? undefined)
        if (result.exit_code !== 0 && !expected) {
          return yield* new AttemptFailed({
            code: "exit_code",
            message: result.exit_code === null
              ? `${argv[0]} was ended by ${result.signal ?? "a signal"}`
              : `${argv[0]} exited with code ${result.exit_code}`,
            result
          })
        }
        return { result } satisfies AttemptOutcome as AttemptOutcome
      }
    }
  })
