/**
 * Runs the bundled CLI (`dist/cli/main.mjs`, what `npm start` and the
 * `svc-gateway` bin run) as a child process for tests, and waits for its
 * start log. `npm test` builds the bundle before running the tests.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The bundled entry point. */
export const MAIN = join(import.meta.dirname, "..", "..", "dist", "cli", "main.mjs")

/** A running CLI process and what it printed so far. */
export interface Run {
  readonly child: ChildProcess
  stdout: string
  stderr: string
  readonly exited: Promise<number | null>
}

/** Starts `node dist/cli/main.mjs ...args` with only PATH, HOME and `env` in its environment. */
export const run = (args: ReadonlyArray<string>, env: Record<string, string | undefined>): Run => {
  const child = spawn(process.execPath, [MAIN, ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"]
  })
  return collect(child)
}

/** A {@link Run} of a started child: its output collected as it comes, its exit code once it exits. */
export const collect = (child: ChildProcess): Run => {
  const result: Run = {
    child,
    stdout: "",
    stderr: "",
    exited: new Promise((resolve) => child.on("exit", (code) => resolve(code)))
  }
  child.stdout!.on("data", (d) => (result.stdout += d))
  child.stderr!.on("data", (d) => (result.stderr += d))
  return result
}

/** Waits (up to 10 s) for the start log line and returns its annotations. */
export const started = async (r: Run): Promise<Record<string, string>> => {
  for (let i = 0; i < 200; i++) {
    const line = r.stdout.split("\n").find((l) => l.includes("svc-gateway listening"))
    if (line) return JSON.parse(line).annotations
    if (r.child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`gateway did not start:\n${r.stdout}\n${r.stderr}`)
}

/** A fresh state directory. */
export const home = (): string => mkdtempSync(join(tmpdir(), "svc-cli-"))
