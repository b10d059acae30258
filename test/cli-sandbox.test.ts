/**
 * `svc-gateway serve` with CLI steps on (issue 20 §2; docs/workflow-executors.md
 * "Sandbox"): the issue's command, run as a CLI step of a real run on a
 * gateway whose environment holds `SVC_ADMIN_TOKEN` and whose home holds
 * `secrets.master.key`, prints neither, in `GET /workflow/runs/:id` nor in the
 * snapshot export; `/status` shows the sandbox. Without a sandbox (no `bwrap`
 * or `unshare` on `PATH`) the start log says why CLI steps are off, `/status`
 * shows `unavailable` and a CLI step fails with `sandbox_unavailable`;
 * `SVC_CLI_UNSANDBOXED=1` runs them anyway. Runs the bundled CLI
 * (dist/cli/main.mjs, built by `npm test`).
 */
import { describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { home, run, type Run, started } from "./support/cli.ts"

/** The command of issue 20 §2, verbatim. */
const ISSUE_COMMAND = `tr "\\0" "\\n" </proc/$PPID/environ; cat ../../secrets.master.key`

/** A home whose policy allows CLI steps (the default escalates them to an approval). */
const homeAllowingExec = () => {
  const dir = home()
  writeFileSync(join(dir, "policy.yml"), "v: 1\ntools:\n  allow: [tool.exec]\n")
  return dir
}

/** Starts the gateway with CLI steps and the engine API on; `env` adds to (or replaces) that. */
const serve = async (dir: string, token: string, env: Record<string, string> = {}) => {
  const gateway = run(["serve"], {
    SVC_HOME: dir,
    SVC_PORT: "0",
    SVC_ADMIN_TOKEN: token,
    SVC_CLI_ENABLED: "1",
    SVC_ENGINE_API_ENABLED: "1",
    ...env
  })
  const info = await started(gateway)
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(`${info.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    return { status: res.status, text: await res.text() }
  }
  return { gateway, call }
}

const stop = async (gateway: Run) => {
  gateway.child.kill("SIGTERM")
  await gateway.exited
}

/** Runs one CLI step and returns `GET /workflow/runs/:id` once its first attempt has ended. */
const runStep = async (call: Awaited<ReturnType<typeof serve>>["call"], argv: ReadonlyArray<string>) => {
  const started = await call("/workflow/run", { key: `agent:sandbox-${randomBytes(4).toString("hex")}:main`, steps: [{ type: "CLI", args: { argv } }] })
  expect(started.status).toBe(200)
  const runId = JSON.parse(started.text).run_id as string
  for (let i = 0; i < 300; i++) {
    const detail = await call(`/workflow/runs/${runId}`)
    const attempts = JSON.parse(detail.text).steps[0].attempts as Array<{ status: string; finished_at: string | null }>
    if (attempts.some((a) => a.finished_at !== null)) return detail.text
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`the CLI step of ${runId} did not finish`)
}

describe("svc-gateway serve: CLI steps in a sandbox", () => {
  it("the issue's command prints neither SVC_ADMIN_TOKEN nor the master key; /status shows the sandbox", async () => {
    const dir = homeAllowingExec()
    const token = randomBytes(24).toString("hex")
    const { gateway, call } = await serve(dir, token)
    try {
      const key = readFileSync(join(dir, "secrets.master.key"), "utf8").trim()
      expect(key).toMatch(/^[0-9a-f]{64}$/)
      const features = JSON.parse((await call("/status")).text).features
      expect(["bwrap", "unshare"]).toContain(features.cli_sandbox)
      expect(features.cli).toBe(true)

      const detail = await runStep(call, ["sh", "-c", ISSUE_COMMAND])
      // The step ran (its stderr is there) and read nothing of the gateway's.
      expect(detail).toContain("secrets.master.key: No such file or directory")
      expect(detail).not.toContain(token)
      expect(detail).not.toContain(key)
      expect(detail).not.toContain("SVC_HOME")
      const exported = await call("/snapshot/export")
      expect(exported.status).toBe(200)
      expect(exported.text).toContain("secrets.master.key: No such file or directory")
      expect(exported.text).not.toContain(token)
      expect(exported.text).not.toContain(key)
    } finally {
      await stop(gateway)
    }
  })

  it("without a sandbox CLI steps are off (start log, /status, sandbox_unavailable); SVC_CLI_UNSANDBOXED=1 runs them", async () => {
    const token = randomBytes(24).toString("hex")
    const off = await serve(homeAllowingExec(), token, { PATH: "/nonexistent" })
    try {
      const warning = off.gateway.stdout.split("\n").find((l) => l.includes("CLI steps are off"))
      expect(warning).toBeDefined()
      expect(JSON.parse(warning!).message).toContain("neither bwrap nor unshare is on PATH")
      expect(JSON.parse(warning!).message).toContain("SVC_CLI_UNSANDBOXED=1")
      const features = JSON.parse((await off.call("/status")).text).features
      expect(features).toMatchObject({ cli: false, cli_sandbox: "unavailable" })
      const detail = JSON.parse(await runStep(off.call, ["/bin/sh", "-c", "echo ran"]))
      expect(detail.steps[0].attempts[0].error).toMatchObject({ code: "sandbox_unavailable" })
      expect(detail.steps[0].attempts[0].error.message).toContain("no sandbox is available")
    } finally {
      await stop(off.gateway)
    }

    const on = await serve(homeAllowingExec(), token, { PATH: "/nonexistent", SVC_CLI_UNSANDBOXED: "1" })
    try {
      expect(on.gateway.stdout).toContain("CLI steps run WITHOUT a sandbox (SVC_CLI_UNSANDBOXED=1")
      expect(JSON.parse((await on.call("/status")).text).features).toMatchObject({ cli: true, cli_sandbox: "unsandboxed" })
      const detail = JSON.parse(await runStep(on.call, ["/bin/sh", "-c", "echo ran"]))
      expect(detail.steps[0].attempts[0].result).toMatchObject({ exit_code: 0, stdout: "ran\n" })
    } finally {
      await stop(on.gateway)
    }
  })
})
