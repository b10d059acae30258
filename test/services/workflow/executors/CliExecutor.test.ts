/**
 * The CLI executor with real processes (`node -e`, `sh -c`) in the sandbox
 * this machine offers (util-linux `unshare`; `bwrap` too when on PATH):
 * output and exit code, a fresh working directory per attempt outside
 * `$SVC_HOME` and removed after, non-zero exit, the timeout kill, disabled,
 * no shell (arguments are passed literally), output caps, the child's
 * environment; what the sandbox hides (the gateway's `/proc` entry and
 * environment, `$SVC_HOME`, a master key elsewhere); no sandbox available,
 * with and without `SVC_CLI_UNSANDBOXED=1`.
 */
import { existsSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import type { ActionPrimitive } from "../../../../services/planner/schema.ts"
import { argvOf, MAX_CLI_OUTPUT_BYTES, makeCliExecutor } from "../../../../services/workflow/executors/CliExecutor.ts"
import { CliSandbox, type CliSandboxOptions } from "../../../../services/workflow/executors/CliSandbox.ts"
import type { AttemptContext, AttemptFailed, AttemptOutcome } from "../../../../services/workflow/StepExecutor.ts"
import { context, step } from "./support.ts"

/** A gateway home holding a master key, and a second key file outside it. */
const home = mkdtempSync(path.join(tmpdir(), "svc-cli-home-"))
const KEY = "0123456789abcdef".repeat(4)
writeFileSync(path.join(home, "secrets.master.key"), KEY, { mode: 0o600 })
const elsewhere = mkdtempSync(path.join(tmpdir(), "svc-cli-key-"))
const OTHER_KEY = "fedcba9876543210".repeat(4)
writeFileSync(path.join(elsewhere, "master.key"), OTHER_KEY, { mode: 0o600 })

const options: CliSandboxOptions = { enabled: true, allowUnsandboxed: false, hidden: [home, path.join(elsewhere, "master.key")] }

const node = (script: string, ...rest: Array<string>) => step("CLI", { argv: [process.execPath, "-e", script, ...rest] })
const sh = (script: string) => step("CLI", { argv: ["sh", "-c", script] })
const run = (action: ActionPrimitive, attempt: AttemptContext = context()) =>
  Effect.flatMap(CliSandbox, (sandbox) => makeCliExecutor(sandbox)(action, attempt))
/** The failure of an attempt, which must fail. */
const failureOf = <R>(effect: Effect.Effect<AttemptOutcome, AttemptFailed, R>) =>
  Effect.flip(effect).pipe(Effect.mapError((outcome) => new Error(`expected a failure, got ${JSON.stringify(outcome)}`)))
const stdoutOf = (result: unknown) => (result as { stdout: string }).stdout

/** The command, and the same reads with absolute paths (the working directory is no longer inside `$SVC_HOME`). */
const LEAK = [
  `tr "\\0" "\\n" </proc/$PPID/environ; cat ../../secrets.master.key`,
  `tr "\\0" "\\n" </proc/${process.pid}/environ`,
  `cat ${home}/secrets.master.key; ls -a ${home}; cat ${elsewhere}/master.key`
].join("; ")

layer(CliSandbox.layerWith(options), { excludeTestServices: true })("CliExecutor in a sandbox", (it) => {
  it.effect("chooses a sandbox at start", () =>
    Effect.gen(function*() {
      const sandbox = yield* CliSandbox
      expect(["bwrap", "unshare"]).toContain(sandbox.kind)
      expect(sandbox.reason).toBeUndefined()
    }))

  it.effect("runs argv in a fresh working directory outside $SVC_HOME, removed after the attempt", () =>
    Effect.gen(function*() {
      const { result } = yield* run(node("require('fs').writeFileSync('f', 'x'); process.stdout.write(process.cwd() + '|' + process.env.HOME); process.stderr.write('warn')"))
      const [cwd, homeEnv] = stdoutOf(result).split("|")
      expect(result).toMatchObject({ exit_code: 0, signal: null, stderr: "warn", stdout_truncated: false, stderr_truncated: false })
      expect(homeEnv).toBe(cwd)
      expect(path.isAbsolute(cwd!)).toBe(true)
      expect(cwd!.startsWith(realpathSync(tmpdir()))).toBe(true)
      expect(cwd!.startsWith(realpathSync(home))).toBe(false)
      expect(existsSync(cwd!)).toBe(false)
      // Each attempt its own directory.
      const second = stdoutOf((yield* run(node("process.stdout.write(process.cwd())"))).result)
      expect(second).not.toBe(cwd)
      // {cmd, args} form
      const echoed = yield* run(step("CLI", { cmd: process.execPath, args: ["-e", "console.log(process.argv.slice(1).join('|'))", "a", "b c"] }))
      expect(echoed.result).toMatchObject({ exit_code: 0, stdout: "a|b c\n" })
    }))

  it.effect("hides the gateway's /proc entry and environment, $SVC_HOME and the master key (issue 20 §2)", () =>
    Effect.gen(function*() {
      // Unsandboxed, the second read prints this process's environment (it holds VITEST=…).
      const failed = yield* failureOf(run(sh(LEAK)))
      expect(failed.code).toBe("exit_code")
      const { stdout, stderr } = failed.result as { stdout: string; stderr: string }
      expect(stdout).not.toContain("VITEST")
      expect(stdout).not.toContain(KEY)
      expect(stdout).not.toContain(OTHER_KEY)
      expect(stdout).not.toContain("secrets.master.key")
      expect(stderr).toContain("secrets.master.key")
      // The step cannot undo it: no capability to unmount what hides $SVC_HOME.
      const umount = yield* failureOf(run(sh(`umount ${home} 2>&1; cat ${home}/secrets.master.key`)))
      expect(stdoutOf(umount.result)).not.toContain(KEY)
    }))

  it.effect("a non-zero exit fails with exit_code and the result, unless postcondition.status names it", () =>
    Effect.gen(function*() {
      const failed = yield* failureOf(run(node("console.log('out'); process.exit(3)")))
      expect(failed.code).toBe("exit_code")
      expect(failed.message).toContain("code 3")
      expect(failed.result).toMatchObject({ exit_code: 3, stdout: "out\n" })
      const expected = yield* run({ ...node("process.exit(3)"), postcondition: { status: 3 } })
      expect(expected.result).toMatchObject({ exit_code: 3 })
    }))

  it.effect("kills the process at the timeout", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const failed = yield* failureOf(
        run(node("process.stdout.write('started'); setInterval(() => {}, 1000)"), context({ timeout_ms: 500 }))
      )
      expect(failed.code).toBe("timeout")
      expect(failed.result).toMatchObject({ exit_code: null, signal: "SIGKILL" })
      expect(Date.now() - started).toBeLessThan(10_000)
    }))

  it.effect("passes shell metacharacters literally (no shell); a missing program is a spawn_error", () =>
    Effect.gen(function*() {
      const { result } = yield* run(
        node("console.log(JSON.stringify(process.argv.slice(1)))", "; rm -rf /", "$(whoami)", "`id`", "a && b | c > d")
      )
      expect(JSON.parse(stdoutOf(result))).toEqual(["; rm -rf /", "$(whoami)", "`id`", "a && b | c > d"])
      // A whole command line as argv[0] is a (missing) program name, not a shell command.
      const failed = yield* failureOf(run(step("CLI", { argv: ["echo hi; rm -rf /"] })))
      expect(failed.code).toBe("spawn_error")
      expect(failed.message).toContain("ENOENT")
    }))

  it.effect("caps stdout and stderr", () =>
    Effect.gen(function*() {
      const { result } = yield* run(
        node(`process.stdout.write('o'.repeat(${MAX_CLI_OUTPUT_BYTES * 3})); process.stderr.write('e'.repeat(10))`)
      )
      const r = result as { stdout: string; stdout_truncated: boolean; stderr: string; stderr_truncated: boolean }
      expect(r.stdout).toBe("o".repeat(MAX_CLI_OUTPUT_BYTES))
      expect(r.stdout_truncated).toBe(true)
      expect(r.stderr).toBe("e".repeat(10))
      expect(r.stderr_truncated).toBe(false)
    }))

  it.effect("does not pass the gateway's environment to the child", () =>
    Effect.gen(function*() {
      process.env.SVC_TEST_SECRET = "s3cret"
      try {
        const { result } = yield* run(node("console.log(JSON.stringify(Object.keys(process.env).sort()))"))
        const keys = JSON.parse(stdoutOf(result)) as Array<string>
        expect(keys).not.toContain("SVC_TEST_SECRET")
        expect(keys).toContain("HOME")
      } finally {
        delete process.env.SVC_TEST_SECRET
      }
    }))

  it.effect("invalid args fail with invalid_action", () =>
    Effect.gen(function*() {
      for (const args of [{}, { argv: [] }, { argv: [1] }, { cmd: "x", args: "y" }, { argv: [""] }]) {
        expect((yield* failureOf(run(step("CLI", args)))).code).toBe("invalid_action")
      }
      expect(argvOf({ cmd: "git", args: ["status"] })).toEqual(["git", "status"])
    }))
})

describe("CliExecutor without a sandbox", () => {
  it.live("disabled: unsupported_action naming SVC_CLI_ENABLED=1", () =>
    Effect.gen(function*() {
      const failed = yield* failureOf(run(node("console.log(1)")))
      expect(failed.code).toBe("unsupported_action")
      expect(failed.message).toContain("SVC_CLI_ENABLED=1")
      expect((yield* CliSandbox).kind).toBe("disabled")
    }).pipe(Effect.provide(CliSandbox.layerWith({ ...options, enabled: false }))))

  it.live("none works: steps fail with sandbox_unavailable saying why and naming SVC_CLI_UNSANDBOXED=1", () =>
    Effect.gen(function*() {
      const sandbox = yield* CliSandbox
      expect(sandbox.kind).toBe("unavailable")
      const failed = yield* failureOf(run(node("console.log(1)")))
      expect(failed.code).toBe("sandbox_unavailable")
      expect(failed.message).toContain("no sandbox is available")
      expect(failed.message).toContain("/nonexistent/unshare")
      expect(failed.message).toContain("SVC_CLI_UNSANDBOXED=1")
    }).pipe(Effect.provide(CliSandbox.layerWith({ ...options, sandboxes: [{ kind: "unshare", program: "/nonexistent/unshare" }] }))))

  it.live("none works and SVC_CLI_UNSANDBOXED=1: steps run without one, still outside $SVC_HOME", () =>
    Effect.gen(function*() {
      expect((yield* CliSandbox).kind).toBe("unsandboxed")
      const { result } = yield* run(node("process.stdout.write(process.cwd())"))
      expect(stdoutOf(result).startsWith(realpathSync(home))).toBe(false)
      // What the setting exposes: the gateway's files.
      const exposed = yield* run(sh(`cat ${home}/secrets.master.key`))
      expect(stdoutOf(exposed.result)).toBe(KEY)
    }).pipe(Effect.provide(CliSandbox.layerWith({ ...options, allowUnsandboxed: true, sandboxes: [] }))))

  it.live("a temporary directory inside a hidden path leaves no sandbox", () =>
    Effect.gen(function*() {
      const sandbox = yield* CliSandbox
      expect(sandbox.kind).toBe("unavailable")
      expect(sandbox.reason).toContain("TMPDIR")
    }).pipe(Effect.provide(CliSandbox.layerWith({ ...options, tempDirectory: home }))))
})
