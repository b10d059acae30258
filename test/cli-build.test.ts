/**
 * `npm install && npm start` (README "Run it"; issue 20 §1): the install
 * builds the CLI once (`prepare`), and `npm start` only checks that dist/cli
 * is newer than its sources (`prestart`: scripts/build-if-stale.mjs) before
 * starting the gateway, rebuilding only after a source changed.
 *
 * Runs in a copy of the working tree without dist/ (its node_modules linked
 * to ours), so the dist/ the other CLI tests use is never rebuilt under them.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync, unlinkSync, utimesSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, relative, sep } from "node:path"
import { afterAll, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "..")
const temp = mkdtempSync(join(tmpdir(), "svc-build-"))
const source = join(temp, "source")
const children: Array<ChildProcess> = []
afterAll(() => {
  for (const child of children) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
    } catch {
      // already gone
    }
  }
  // The copy's node_modules is a link to the repository's: unlinked first, so cleanup never reaches into it.
  if (existsSync(join(source, "node_modules"))) unlinkSync(join(source, "node_modules"))
  rmSync(temp, { recursive: true, force: true })
})

const env = () => ({ ...process.env, npm_config_update_notifier: "false", npm_config_fund: "false", npm_config_audit: "false" })

/** Runs a command in the copy; its exit code and output. */
const exec = (file: string, args: ReadonlyArray<string>) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(file, args, { cwd: source, env: env(), timeout: 240_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, output: stdout + stderr }))
  })

const STAMP = () => join(source, "dist", "cli", "help.json")

it("the install builds the CLI and the console once; npm start starts it without rebuilding, and rebuilds after a source change", async () => {
  cpSync(ROOT, source, {
    recursive: true,
    filter: (src) => {
      const parts = relative(ROOT, src).split(sep)
      return !parts.includes("node_modules") && !["dist", ".git"].includes(parts[0]!)
    }
  })
  symlinkSync(join(ROOT, "node_modules"), join(source, "node_modules"), "junction")

  expect(await exec(process.execPath, ["scripts/build-if-stale.mjs", "--check"])).toEqual({
    code: 1,
    output: "build due: dist/cli is missing\nbuild due: dist/ui is missing\n"
  })
  // What `npm install` / `npm ci` run after installing the dependencies.
  const prepare = await exec("npm", ["run", "prepare"])
  expect(prepare.code, prepare.output).toBe(0)
  const built = statSync(STAMP()).mtimeMs
  expect(await exec(process.execPath, ["scripts/build-if-stale.mjs", "--check"])).toEqual({
    code: 0,
    output: "dist/cli is up to date\ndist/ui is up to date\n"
  })

  // npm start's own step on an up-to-date build: no build.
  const prestart = await exec("npm", ["run", "prestart"])
  expect(prestart.code, prestart.output).toBe(0)
  expect(prestart.output).not.toContain("building")
  expect(statSync(STAMP()).mtimeMs).toBe(built)

  // npm start itself reaches /healthz (the time it took is printed; the README promises a few seconds).
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
  const t0 = Date.now()
  const start = spawn("npm", ["start"], {
    cwd: source,
    env: { ...env(), SVC_HOME: join(temp, "home"), SVC_PORT: String(port), SVC_ADMIN_TOKEN: "s".repeat(40) },
    stdio: "ignore",
    detached: true
  })
  children.push(start)
  let healthy = false
  while (!healthy && Date.now() - t0 < 60_000 && start.exitCode === null) {
    healthy = (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200
    if (!healthy) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const elapsed = Date.now() - t0
  // The console the install built is what /ui serves.
  const shell = healthy ? await fetch(`http://127.0.0.1:${port}/ui`).catch(() => undefined) : undefined
  const shellText = (await shell?.text()) ?? ""
  process.kill(-start.pid!, "SIGTERM")
  expect(healthy).toBe(true)
  expect(shell?.status).toBe(200)
  expect(shellText).toMatch(/<script type="module"[^>]* src="\/ui\/assets\/index-[\w-]+\.js"/)
  console.log(`npm start → /healthz: ${elapsed} ms`)
  expect(statSync(STAMP()).mtimeMs).toBe(built)

  // A changed source makes the next start rebuild.
  const future = new Date(Date.now() + 60_000)
  utimesSync(join(source, "src", "serve.ts"), future, future)
  expect(await exec(process.execPath, ["scripts/build-if-stale.mjs", "--check"])).toEqual({
    code: 1,
    output: `build due: ${join("src", "serve.ts")} is newer than dist/cli\nbuild due: ${join("src", "serve.ts")} is newer than dist/ui\n`
  })
  const rebuild = await exec("npm", ["run", "prestart"])
  expect(rebuild.code, rebuild.output).toBe(0)
  expect(rebuild.output).toContain(`svc-gateway: building the CLI (${join("src", "serve.ts")} is newer than dist/cli)`)
  expect(rebuild.output).toContain(`svc-gateway: building the operator console (${join("src", "serve.ts")} is newer than dist/ui)`)
  expect(statSync(STAMP()).mtimeMs).toBeGreaterThan(built)
}, 300_000)
