/**
 * The CLI executor with real processes (`node -e`): output and exit code,
 * the per-run working directory, non-zero exit, the timeout kill, disabled,
 * no shell (arguments are passed literally), output caps, the child's environment.
 */
import { mkdtempSync, existsSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { argvOf, MAX_CLI_OUTPUT_BYTES, makeCliExecutor } from "../../../../services/workflow/executors/CliExecutor.ts"
import { context, failureOf, step } from "./support.ts"

const root = mkdtempSync(path.join(tmpdir(), "svc-cli-"))
const run = makeCliExecutor({ enabled: true, workspacesRoot: root })
const node = (script: string, ...rest: Array<string>) => step("CLI", { argv: [process.execPath, "-e", script, ...rest] })

describe("CliExecutor", () => {
  it.live("runs argv in <workspacesRoot>/<run_id> and returns exit code and output", () =>
    Effect.gen(function*() {
      const { result } = yield* run(
        node("process.stdout.write(process.cwd()); process.stderr.write('warn')"),
        context({ run_id: "run-cwd" })
      )
      expect(result).toEqual({
        exit_code: 0,
        signal: null,
        stdout: realpathSync(path.join(root, "run-cwd")),
        stderr: "warn",
        stdout_truncated: false,
        stderr_truncated: false
      })
      expect(existsSync(path.join(root, "run-cwd"))).toBe(true)
      // {cmd, args} form
      const echoed = yield* run(
        step("CLI", { cmd: process.execPath, args: ["-e", "console.log(process.argv.slice(1).join('|'))", "a", "b c"] }),
        context()
      )
      expect(echoed.result).toMatchObject({ exit_code: 0, stdout: "a|b c\n" })
    }))

  it.live("a non-zero exit fails with exit_code and the result, unless postcondition.status names it", () =>
    Effect.gen(function*() {
      const failed = yield* failureOf(run(node("console.log('out'); process.exit(3)"), context()))
      expect(failed.code).toBe("exit_code")
      expect(failed.message).toContain("code 3")
      expect(failed.result).toMatchObject({ exit_code: 3, stdout: "out\n" })
      const expected = yield* run({ ...node("process.exit(3)"), postcondition: { status: 3 } }, context())
      expect(expected.result).toMatchObject({ exit_code: 3 })
    }))

  it.live("kills the process at the timeout", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const failed = yield* failureOf(
        run(node("process.stdout.write('started'); setInterval(() => {}, 1000)"), context({ timeout_ms: 300 }))
      )
      expect(failed.code).toBe("timeout")
      expect(failed.result).toMatchObject({ exit_code: null, signal: "SIGKILL" })
      expect(Date.now() - started).toBeLessThan(10_000)
    }))

  it.live("passes shell metacharacters literally (no shell)", () =>
    Effect.gen(function*() {
      const { result } = yield* run(
        node("console.log(JSON.stringify(process.argv.slice(1)))", "; rm -rf /", "$(whoami)", "`id`", "a && b | c > d"),
        context()
      )
      expect(JSON.parse((result as { stdout: string }).stdout)).toEqual(["; rm -rf /", "$(whoami)", "`id`", "a && b | c > d"])
      // A whole command line as argv[0] is a (missing) program name, not a shell command.
      const failed = yield* failureOf(run(step("CLI", { argv: ["echo hi; rm -rf /"] }), context()))
      expect(failed.code).toBe("spawn_error")
    }))

  it.live("caps stdout and stderr", () =>
    Effect.gen(function*() {
      const { result } = yield* run(
        node(`process.stdout.write('o'.repeat(${MAX_CLI_OUTPUT_BYTES * 3})); process.stderr.write('e'.repeat(10))`),
        context()
      )
      const r = result as { stdout: string; stdout_truncated: boolean; stderr: string; stderr_truncated: boolean }
      expect(r.stdout).toBe("o".repeat(MAX_CLI_OUTPUT_BYTES))
      expect(r.stdout_truncated).toBe(true)
      expect(r.stderr).toBe("e".repeat(10))
      expect(r.stderr_truncated).toBe(false)
    }))

  it.live("does not pass the gateway's environment to the child", () =>
    Effect.gen(function*() {
      process.env.SVC_TEST_SECRET = "s3cret"
      try {
        const { result } = yield* run(node("console.log(JSON.stringify(Object.keys(process.env).sort()))"), context({ run_id: "env" }))
        const keys = JSON.parse((result as { stdout: string }).stdout) as Array<string>
        expect(keys).not.toContain("SVC_TEST_SECRET")
        expect(keys).toContain("HOME")
      } finally {
        delete process.env.SVC_TEST_SECRET
      }
    }))

  it.live("disabled: unsupported_action naming SVC_CLI_ENABLED=1", () =>
    Effect.gen(function*() {
      const disabled = makeCliExecutor({ enabled: false, workspacesRoot: root })
      const failed = yield* failureOf(disabled(node("console.log(1)"), context({ run_id: "never" })))
      expect(failed.code).toBe("unsupported_action")
      expect(failed.message).toContain("SVC_CLI_ENABLED=1")
      expect(existsSync(path.join(root, "never"))).toBe(false)
    }))

  it.live("invalid args and unsafe run ids fail with invalid_action", () =>
    Effect.gen(function*() {
      for (const args of [{}, { argv: [] }, { argv: [1] }, { cmd: "x", args: "y" }, { argv: [""] }]) {
        expect((yield* failureOf(run(step("CLI", args), context()))).code).toBe("invalid_action")
      }
      expect((yield* failureOf(run(node("1"), context({ run_id: "../escape" })))).code).toBe("invalid_action")
      expect(argvOf({ cmd: "git", args: ["status"] })).toEqual(["git", "status"])
    }))
})
