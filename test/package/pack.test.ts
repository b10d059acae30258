/**
 * The package as another Node project gets it: `npm pack` (which builds via
 * `prepack`; run in a copy of the working tree, so the repository's dist/ is
 * left alone), a fresh consumer project outside this repository that installs
 * the tarball, type-checks and runs `examples/compose` against it, resolves
 * every `exports` entry, and runs the `svc-gateway` bin.
 *
 * Slow (a full `tsc` emit, an `npm install` from the local cache, a `tsc`
 * check of the consumer), hence the single test with a generous timeout.
 */
import { type ChildProcess, execFile, spawn } from "node:child_process"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative, sep } from "node:path"
import { afterAll, expect, it } from "vitest"

const ROOT = join(import.meta.dirname, "..", "..")
const EXAMPLE = join(ROOT, "examples", "compose")
const ADMIN_TOKEN = "c".repeat(32) + "d".repeat(32)

const temp = mkdtempSync(join(tmpdir(), "svc-pack-"))
const children: Array<ChildProcess> = []
/** The copy's node_modules link to the repository's: unlinked first, so cleanup can never reach into the target. */
const links: Array<string> = []
afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  for (const link of links) if (existsSync(link)) unlinkSync(link)
  rmSync(temp, { recursive: true, force: true })
}, 120_000)

/** Environment for child processes: ours, with node's directory first on PATH (for `#!/usr/bin/env node`). */
const childEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  PATH: `${dirname(process.execPath)}${process.platform === "win32" ? ";" : ":"}${process.env.PATH ?? ""}`,
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  ...extra
})

/** Runs a command to completion; rejects with its output when it fails or exceeds `timeoutMs`. */
const exec = (file: string, args: ReadonlyArray<string>, cwd: string, timeoutMs: number, env = childEnv()) =>
  new Promise<{ stdout: string; stderr: string }>((resolve, reject) => {
    execFile(file, args, { cwd, env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(" ")} (in ${cwd}) failed: ${error.message}\n--- stdout\n${stdout}\n--- stderr\n${stderr}`))
      else resolve({ stdout, stderr })
    })
  })

/** Every file below `dir`, as `/`-separated paths relative to it. */
const listFiles = (dir: string): Array<string> =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split(sep).join("/"))

/** Directories of every installed copy of `name` (any depth of node_modules). */
const installedCopies = (nodeModules: string, name: string): Array<string> => {
  const found: Array<string> = []
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue
      const path = join(dir, entry.name)
      if (entry.name.startsWith("@")) visit(path)
      else {
        if (entry.name === name && existsSync(join(path, "package.json"))) found.push(path)
        if (existsSync(join(path, "node_modules"))) visit(join(path, "node_modules"))
      }
    }
  }
  visit(nodeModules)
  return found
}

/** A spawned process whose output is collected as it arrives. */
interface Running {
  readonly child: ChildProcess
  /** stdout and stderr, interleaved (for diagnostics). */
  readonly output: () => string
  readonly stdout: () => string
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

const start = (args: ReadonlyArray<string>, cwd: string, env: NodeJS.ProcessEnv): Running => {
  let out = ""
  let stdout = ""
  const child = spawn(process.execPath, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] })
  children.push(child)
  child.stdout!.on("data", (d) => {
    out += d
    stdout += d
  })
  child.stderr!.on("data", (d) => (out += d))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal }))
  )
  return { child, output: () => out, stdout: () => stdout, exited }
}

/** Polls `probe` until it returns a value, the process exits, or `timeoutMs` passes. */
const waitFor = async <A>(running: Running, timeoutMs: number, probe: () => A | undefined): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = probe()
    if (value !== undefined) return value
    if (running.child.exitCode !== null || running.child.signalCode !== null) {
      throw new Error(`process exited before it was ready:\n${running.output()}`)
    }
    if (Date.now() > deadline) throw new Error(`not ready after ${timeoutMs} ms:\n${running.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Resolves with the exit, or rejects when the process is still running after `timeoutMs`. */
const exitWithin = (running: Running, timeoutMs: number) =>
  Promise.race([
    running.exited,
    new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`still running ${timeoutMs} ms after SIGTERM:\n${running.output()}`)), timeoutMs).unref()
    )
  ])

/** The tsconfig block of docs/architecture.md "TypeScript settings of a consumer" (after its `consumer-tsconfig` marker). */
const consumerTsconfig = (): { compilerOptions: Record<string, unknown> } => {
  const doc = readFileSync(join(ROOT, "docs", "architecture.md"), "utf8")
  const block = /<!-- consumer-tsconfig[^>]*-->\s*```json\n([\s\S]*?)\n```/.exec(doc)
  if (block === null) throw new Error("docs/architecture.md has no consumer-tsconfig block")
  return JSON.parse(block[1]!)
}

// Type-level checks of the packed declarations, compiled in the consumer. Each
// `@ts-expect-error` fails the build if a declaration did not resolve (the
// name would be `any` and accept anything), so this proves the `.d.ts` files'
// relative imports work under `moduleResolution: NodeNext`.
const TYPE_CHECK = `import { Effect, Layer } from "effect"
import { defaultSettings, GatewayConfigLive, GatewayHttpRoutes, GatewayLive, type GatewaySettings, GatewayServicesLive, PolicyService } from "svc-gateway"
import { GatewayClient, type GatewayClientOptions } from "svc-gateway/client"
import { makeDecoder, PolicyCheckRequest, type PolicyDecision, WS_SUBPROTOCOL } from "svc-gateway/contracts"

export const settings: GatewaySettings = defaultSettings({ port: 0, adminToken: "x".repeat(40) })
// @ts-expect-error port is a number
defaultSettings({ port: "8788" })
export const check: Effect.Effect<PolicyDecision, never, PolicyService> = Effect.gen(function*() {
  const policy = yield* PolicyService
  // @ts-expect-error PolicyService has no such method
  policy.evaluate({})
  return yield* policy.check({ spend: { amount_minor_units: 1, currency: "EUR" } })
})
export const services: Layer.Layer<PolicyService, unknown> = GatewayServicesLive.pipe(Layer.provide(GatewayConfigLive(settings)))
export const routes = GatewayHttpRoutes
export const live = GatewayLive(settings)
export const subprotocol: "svc-v1" = WS_SUBPROTOCOL
export const decode = makeDecoder(PolicyCheckRequest)
export const makeClient = (options: GatewayClientOptions) => new GatewayClient(options)
// @ts-expect-error the options are required
new GatewayClient()
`

it("npm pack builds a package another Node project installs, type-checks and composes (examples/compose)", async () => {
  const timings: Record<string, number> = {}
  const timed = async <A>(label: string, f: () => Promise<A>): Promise<A> => {
    const t0 = Date.now()
    try {
      return await f()
    } finally {
      timings[label] = Date.now() - t0
    }
  }

  // 1. Pack (prepack builds dist/ with tsconfig.package.json) from a copy of the working tree without dist/, so the
  //    tarball is what a clean checkout packs and this test never rewrites the dist/ other tests run from.
  const source = join(temp, "source")
  cpSync(ROOT, source, {
    recursive: true,
    filter: (src) => {
      const parts = relative(ROOT, src).split(sep)
      return !parts.includes("node_modules") && !["dist", ".git"].includes(parts[0]!)
    }
  })
  symlinkSync(join(ROOT, "node_modules"), join(source, "node_modules"), "junction")
  links.push(join(source, "node_modules"))
  const packDir = join(temp, "pack")
  mkdirSync(packDir)
  await timed("npm pack", () => exec("npm", ["pack", "--pack-destination", packDir], source, 240_000))
  const tarballs = readdirSync(packDir).filter((f) => f.endsWith(".tgz"))
  expect(tarballs).toHaveLength(1)
  const tarball = join(packDir, tarballs[0]!)

  // 2. A consumer project outside the repository (so nothing resolves from the repo's node_modules):
  //    examples/compose as is, with svc-gateway pointing at the tarball.
  const consumer = join(temp, "consumer")
  cpSync(EXAMPLE, consumer, {
    recursive: true,
    filter: (src) => !/[\\/](node_modules|package-lock\.json)$/.test(src)
  })
  const manifest = JSON.parse(readFileSync(join(consumer, "package.json"), "utf8"))
  expect(manifest.dependencies["svc-gateway"]).toBeDefined()
  manifest.dependencies["svc-gateway"] = `file:${tarball}`
  writeFileSync(join(consumer, "package.json"), JSON.stringify(manifest, null, 2))
  await timed("npm install", () => exec("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund"], consumer, 240_000))

  // 3. What got packed: the built library and the bin, nothing of bench/, test/, sources or source maps.
  const installed = join(consumer, "node_modules", "svc-gateway")
  const files = listFiles(installed)
  for (const entry of [
    "package.json",
    "bin/svc-gateway.mjs",
    "dist/src/app/gateway.js",
    "dist/src/app/gateway.d.ts",
    "dist/src/client/index.js",
    "dist/src/client/index.d.ts",
    "dist/src/contracts/index.js",
    "dist/src/contracts/index.d.ts",
    "dist/src/main.js",
    "dist/cli/main.mjs"
  ]) expect(files, entry).toContain(entry)
  expect(files.filter((f) => f.startsWith("dist/bench/") || f.startsWith("dist/test/"))).toEqual([])
  expect(files.filter((f) => f.endsWith(".map") || (f.endsWith(".ts") && !f.endsWith(".d.ts")))).toEqual([])
  // Only what runs: effect/http-api's Scalar and Swagger UI bundles (about 5 MB, loaded by HttpApiScalar/HttpApiSwagger,
  // which the gateway does not serve) are stubs in the CLI bundle (scripts/bundle.mjs).
  const sizes = Object.fromEntries(files.map((f) => [f, statSync(join(installed, f)).size]))
  for (const [file, size] of Object.entries(sizes)) {
    if (/httpApi(Scalar|Swagger)/i.test(file)) expect(size, file).toBeLessThan(1024)
  }
  const total = Object.values(sizes).reduce((a, b) => a + b, 0)
  // 8 MiB: the library and CLI (about 6.8 MB with issue 26's plugins, MCP clients and messenger: 7.46 MB in all when
  // they landed) plus the operator console's build (dist/ui, about 0.6 MB, issue 23). The Scalar/Swagger stubs above
  // keep the 5 MB of bundles the gateway never serves out.
  expect(total, "unpacked package size").toBeLessThan(8 * 1024 * 1024)
  // One copy of effect for the whole app: two copies would mean two sets of Context tags.
  expect(installedCopies(join(consumer, "node_modules"), "effect")).toEqual([join(consumer, "node_modules", "effect")])

  // 4. Every export resolves at run time; deep imports are closed.
  const probe = await exec(process.execPath, [
    "--input-type=module",
    "-e",
    `const root = await import("svc-gateway")
const client = await import("svc-gateway/client")
const contracts = await import("svc-gateway/contracts")
const plugin = await import("svc-gateway/plugin")
const { createRequire } = await import("node:module")
const pkg = createRequire(import.meta.url)("svc-gateway/package.json")
let deep = "open"
try { await import("svc-gateway/dist/src/config.js") } catch (e) { deep = e.code }
console.log(JSON.stringify({
  root: [typeof root.GatewayLive, typeof root.GatewayServicesLive, typeof root.defaultSettings, typeof root.PolicyService],
  client: typeof client.GatewayClient,
  contracts: [contracts.RULE_NAMES, contracts.WS_SUBPROTOCOL, typeof contracts.makeDecoder, typeof contracts.verifyProof],
  plugin: typeof plugin.definePlugin,
  name: pkg.name,
  deep
}))`
  ], consumer, 60_000)
  expect(JSON.parse(probe.stdout)).toEqual({
    root: ["function", "object", "function", "function"],
    client: "function",
    contracts: [["spend_limit", "pii_guardrail", "legal_compliance", "connector_scope"], "svc-v1", "function", "function"],
    plugin: "function",
    name: "svc-gateway",
    deep: "ERR_PACKAGE_PATH_NOT_EXPORTED"
  })

  // 5. Types: the example (checkJs) plus TYPE_CHECK, against the packed declarations, with the consumer's tsc.
  writeFileSync(join(consumer, "types-check.ts"), TYPE_CHECK)
  writeFileSync(
    join(consumer, "tsconfig.check.json"),
    JSON.stringify({ extends: "./tsconfig.json", include: ["*.mjs", "types-check.ts"] })
  )
  const tsc = await timed("tsc (consumer)", () =>
    exec(process.execPath, [join(consumer, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.check.json", "--listFiles"], consumer, 180_000)
  )
  // The same files with the consumer settings docs/architecture.md documents (strict, library files checked).
  const documented = consumerTsconfig()
  expect(documented.compilerOptions).toMatchObject({ strict: true, skipLibCheck: false })
  writeFileSync(
    join(consumer, "tsconfig.documented.json"),
    JSON.stringify({ ...documented, compilerOptions: { ...documented.compilerOptions, allowJs: true, checkJs: true }, include: ["*.mjs", "types-check.ts"] })
  )
  await timed("tsc (documented settings)", () =>
    exec(process.execPath, [join(consumer, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.documented.json"], consumer, 180_000)
  )
  const program = tsc.stdout.split(/\r?\n/).map((f) => f.split(sep).join("/"))
  // The declarations' own `./x.ts` specifiers resolved to the packed `.d.ts` files.
  for (const declaration of ["dist/services/policy/PolicyService.d.ts", "dist/services/policy/schema.d.ts", "dist/src/client/GatewayClient.d.ts"]) {
    expect(program.some((f) => f.endsWith(`/node_modules/svc-gateway/${declaration}`)), declaration).toBe(true)
  }

  // 6. The bin works from the installed package.
  const help = await exec(join(consumer, "node_modules", ".bin", "svc-gateway"), ["--help"], consumer, 60_000)
  expect(help.stdout).toContain("serve")

  // 7. Run the example: its own route next to the gateway's, and the in-process policy check.
  const home = join(temp, "home")
  const app = start(["main.mjs"], consumer, childEnv({ PORT: "0", SVC_HOME: home, SVC_ADMIN_TOKEN: ADMIN_TOKEN }))
  const ready = await timed("example start", () =>
    waitFor(app, 60_000, () => {
      // Complete lines only; the app's JSON line sits among the logger's lines.
      for (const line of app.stdout().split("\n").slice(0, -1)) {
        if (!line.startsWith("{\"listening\"")) continue
        return JSON.parse(line) as { listening: string; in_process_decision: unknown }
      }
      return undefined
    })
  )
  const url = ready.listening
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}` }

  const hello = await fetch(`${url}/hello`, { headers: auth })
  expect(hello.status).toBe(200)
  expect(await hello.text()).toBe("hello from my app")
  // The app's route sits behind the gateway's global middleware.
  expect((await fetch(`${url}/hello`)).status).toBe(401)

  const health = await fetch(`${url}/healthz`)
  expect(health.status).toBe(200)
  expect(await health.json()).toEqual({ status: "ok", is_exposed: false })

  const body = JSON.stringify({ spend: { amount_minor_units: 8750, currency: "EUR" } })
  const overHttp = await fetch(`${url}/policy/check`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body })
  expect(overHttp.status).toBe(200)
  const decision = (await overHttp.json()) as { decision: string; rules: Array<{ rule: string; outcome: string }> }
  expect(decision.decision).toBe("require_approval")
  expect(decision.rules[0]).toMatchObject({ rule: "spend_limit", outcome: "allow" })
  // The in-process call went through the same PolicyService: same request, same decision.
  expect(ready.in_process_decision).toEqual(decision)
  expect((await fetch(`${url}/policy/check`, { method: "POST", body })).status).toBe(401)

  app.child.kill("SIGTERM")
  const exit = await timed("example stop", () => exitWithin(app, 30_000))
  // It shut down by itself (finalizers ran): NodeRuntime.runMain exits 130 on an interrupt by default.
  expect(exit.signal, app.output()).toBeNull()
  expect([0, 130], app.output()).toContain(exit.code)

  console.log(`pack test timings (ms): ${JSON.stringify(timings)}`)
}, 600_000)
