/**
 * Running one program to its end for the `CLI` executor and the sandbox
 * probe (docs/workflow-executors.md "CLI"): `node:child_process` `spawn`,
 * never through a shell, stdin closed, each output stream capped, killed
 * (its process group on POSIX, SIGKILL) at the time limit or when the
 * effect is interrupted. Works on Node 20 and Deno 2.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process"
import { constants } from "node:fs"
import { access, stat } from "node:fs/promises"
import * as path from "node:path"
import { Effect } from "effect"

/** Most bytes kept of each of stdout and stderr (64 KiB). */
export const MAX_CLI_OUTPUT_BYTES = 64 * 1024

/** The result of a finished process. */
export interface CliResult {
  /** `null` when the process was ended by a signal. */
  readonly exit_code: number | null
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  readonly stdout_truncated: boolean
  readonly stderr_truncated: boolean
}

/** How a process ended: on its own, killed at the time limit, or never started. */
export type Ended =
  | { readonly _tag: "exited"; readonly result: CliResult }
  | { readonly _tag: "timeout"; readonly result: CliResult }
  | { readonly _tag: "spawn_error"; readonly message: string }

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

/**
 * The environment of a CLI step: only `PATH`, `LANG`, `LC_ALL`, `TZ` (and
 * `SystemRoot` on Windows) of the gateway's, and `HOME` = `workDir`. Nothing
 * else of the gateway's environment (tokens, database URLs) reaches it.
 */
export const childEnv = (workDir: string): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { HOME: workDir }
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

/**
 * Runs `argv` in `cwd` with `env` until it exits or `timeoutMs` passes (then
 * kills it). `name` is what a spawn error calls the program (the step's own
 * program, also when `argv` starts with a sandbox). Never fails.
 */
export const runProcess = (
  argv: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly timeoutMs: number; readonly name?: string }
) =>
  Effect.callback<Ended>((resume) => {
    const stdout = capture(MAX_CLI_OUTPUT_BYTES)
    const stderr = capture(MAX_CLI_OUTPUT_BYTES)
    let timedOut = false
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
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
    }, options.timeoutMs)
    child.stdout?.on("data", stdout.push)
    child.stderr?.on("data", stderr.push)
    child.once("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      resume(Effect.succeed({ _tag: "spawn_error", message: `cannot start ${options.name ?? argv[0]}: ${error.code ?? error.message}` }))
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

/**
 * The absolute path of the executable file `program` names: itself when it
 * is absolute, else the first match in the directories of `searchPath`
 * (`PATH`); `undefined` when there is none, or when it is a relative path
 * with a `/` (it would be looked up in a step's working directory, which
 * starts empty). What `spawn` and `execvp` do, done before a sandbox wraps
 * the program so that a missing one is reported as such.
 */
export const findProgram = async (program: string, searchPath: string | undefined): Promise<string | undefined> => {
  if (program.includes("/") && !path.isAbsolute(program)) return undefined
  const candidates = path.isAbsolute(program)
    ? [program]
    : (searchPath ?? "").split(path.delimiter).filter((dir) => dir !== "").map((dir) => path.join(dir, program))
  for (const candidate of candidates) {
    try {
      await access(candidate, constants.X_OK)
      if ((await stat(candidate)).isFile()) return path.resolve(candidate)
    } catch {
      // not here
    }
  }
  return undefined
}
