/**
 * Start-up and shutdown of `svc-gateway serve` through the bundled CLI
 * (issue 20 §1): the optional-features line and the last `svc-gateway
 * stopped` line, a closed stdout, an unwritable `SVC_HOME`, private files
 * (database, admin token, master key) written whole and 0600, and the demo
 * node's defaults following `SVC_HOME` and `SVC_PORT`.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { collect, home, MAIN, run, type Run, started } from "./support/cli.ts"
import { postgresUrl, sharedPostgresSchema } from "./support/databases.ts"
import { eventually } from "./support/eventually.ts"

const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`

/**
 * Like `run`, but through `sh -c "<prelude> && exec node main.mjs …"` (a umask, a ulimit, a mount), optionally
 * inside `wrapper` (e.g. `unshare --mount`).
 */
const runIn = (prelude: string, args: ReadonlyArray<string>, env: Record<string, string>, wrapper: ReadonlyArray<string> = []): Run => {
  const script = `${prelude} && exec ${[process.execPath, MAIN, ...args].map(quote).join(" ")}`
  const [command, ...rest] = [...wrapper, "sh", "-c", script]
  const child = spawn(command!, rest, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"]
  })
  return collect(child)
}


const lines = (text: string) => text.split("\n").filter((l) => l !== "")
const TOKEN = "7".repeat(64)

/** A TCP port nothing listens on right now. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port
      server.close(() => resolve(port))
    })
  })

describe("svc-gateway serve: start and stop log", () => {
  it("logs the optional features once listening, and `svc-gateway stopped` last after SIGTERM", async () => {
    const r = run(["serve", "--port", "0"], { SVC_HOME: home(), SVC_ADMIN_TOKEN: TOKEN, SVC_ENGINE_API_ENABLED: "1", SVC_METRICS: "off" })
    try {
      await started(r)
      const featuresLine = () => lines(r.stdout).map((l) => JSON.parse(l)).find((l) => l.message === "optional features")
      await eventually(() => featuresLine() !== undefined, "the optional features line")
      expect(featuresLine().annotations).toEqual({
        engine_api: "on",
        cli_steps: "off",
        automation: "off",
        agent: "off",
        plugins: "off",
        snapshot_import: "off",
        metrics: "off",
        tracing: "off"
      })
      r.child.kill("SIGTERM")
      expect(await r.exited).toBe(0)
      const last = JSON.parse(lines(r.stdout).at(-1)!)
      expect(last).toMatchObject({ message: "svc-gateway stopped", level: "INFO" })
      expect(r.stderr).toBe("")
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})

describe("svc-gateway serve with its stdout closed (`svc-gateway serve | head -1`)", () => {
  it("keeps serving, and stops cleanly (exit 0) when its log lines can no longer be written", async () => {
    const port = await freePort()
    const r = run(["serve"], { SVC_HOME: home(), SVC_ADMIN_TOKEN: TOKEN, SVC_PORT: String(port) })
    try {
      await eventually(() => r.stdout.includes("\n"), "the first log line")
      // What `head -1` does after its line: the reading end of the pipe goes away.
      r.child.stdout!.destroy()
      await eventually(async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined))?.status === 200, "/healthz")
      // The shutdown logs (draining, stopped) now hit the closed pipe.
      r.child.kill("SIGTERM")
      expect(await r.exited).toBe(0)
      expect(r.stderr).not.toMatch(/EPIPE|Error/)
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})

describe("SVC_HOME that cannot be written", () => {
  const expectOneLine = async (r: Run, path: string) => {
    expect(await r.exited).toBe(1)
    expect(r.stdout).toBe("")
    expect(lines(r.stderr)).toHaveLength(1)
    expect(lines(r.stderr)[0]).toMatch(new RegExp(`^svc-gateway: SVC_HOME ${path} is not writable \\(.+\\); it holds gateway\\.db, admin-token, secrets\\.master\\.key$`))
  }

  // Root ignores permission bits, so root gets a read-only bind mount of the directory (a private mount namespace).
  const isRoot = process.getuid?.() === 0
  it("a read-only directory: one line naming it, exit 1, nothing opened", async () => {
    const dir = home()
    if (!isRoot) chmodSync(dir, 0o500)
    const r = isRoot
      ? runIn(`mount --bind -o ro ${quote(dir)} ${quote(dir)}`, ["serve", "--port", "0"], { SVC_HOME: dir }, ["unshare", "--mount", "--propagation", "private"])
      : run(["serve", "--port", "0"], { SVC_HOME: dir })
    await expectOneLine(r, dir)
    expect(readdirSync(dir)).toEqual([])
  })

  it("a home that cannot be created (below a regular file): one line naming it", async () => {
    const file = join(home(), "file")
    writeFileSync(file, "")
    const dir = join(file, "svc")
    await expectOneLine(run(["serve", "--port", "0"], { SVC_HOME: dir }), dir)
  })
})

describe("private files", () => {
  it("gateway.db and its -wal and -shm files are created 0600 (umask 022)", async () => {
    const dir = home()
    const r = runIn("umask 022", ["serve", "--port", "0"], { SVC_HOME: dir, SVC_ADMIN_TOKEN: TOKEN })
    try {
      await started(r)
      for (const file of ["gateway.db", "gateway.db-wal", "gateway.db-shm"]) {
        expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600)
      }
    } finally {
      r.child.kill("SIGKILL")
    }
  })

  it("a zero-length admin-token (left by a crash of an older version) is replaced by a new token", async () => {
    const dir = home()
    writeFileSync(join(dir, "admin-token"), "")
    const r = run(["serve", "--port", "0"], { SVC_HOME: dir })
    try {
      const info = await started(r)
      const token = readFileSync(join(dir, "admin-token"), "utf8").trim()
      expect(token).toMatch(/^[0-9a-f]{64}$/)
      expect(info.admin_token).toContain("generated at")
      expect(r.stdout).toContain("the admin token file is empty (left by an interrupted start); generating a new token")
      const res = await fetch(`${info.url}/openapi.json`, { headers: { authorization: `Bearer ${token}` } })
      expect(res.status).toBe(200)
    } finally {
      r.child.kill("SIGKILL")
    }
  })

  // A start that dies while writing a file: `ulimit -f 0` makes every write of a byte fail (EFBIG). On PostgreSQL
  // the token and the key are the only files written under SVC_HOME.
  describe.skipIf(postgresUrl === undefined)("a start that dies while writing a file leaves no partial file (PostgreSQL)", () => {
    /** Runs `f` with a URL of the test server whose connections use a fresh schema (PostgreSQL's `options` parameter). */
    const withSchema = async (f: (url: string) => Promise<void>) => {
      const { drop, schema } = await sharedPostgresSchema(postgresUrl!)
      const url = new URL(postgresUrl!)
      url.searchParams.set("options", `-c search_path=${schema}`)
      try {
        await f(url.toString())
      } finally {
        await drop()
      }
    }

    it.each([
      ["admin-token", { SVC_SECRET_PROVIDER: "env" }],
      ["secrets.master.key", { SVC_ADMIN_TOKEN: TOKEN }]
    ] as const)("%s", (file, env) =>
      withSchema(async (url) => {
        const dir = home()
        const crashed = runIn("ulimit -f 0", ["serve", "--port", "0"], { SVC_HOME: dir, SVC_DATABASE_URL: url, ...env })
        expect(await crashed.exited).not.toBe(0)
        expect(existsSync(join(dir, file)), `${file} after the failed write`).toBe(false)
        const r = run(["serve", "--port", "0"], { SVC_HOME: dir, SVC_DATABASE_URL: url, ...env })
        try {
          await started(r)
          expect(statSync(join(dir, file)).size).toBe(65)
          expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600)
        } finally {
          r.child.kill("SIGKILL")
        }
      }))
  })
})

describe("svc-gateway node: defaults follow SVC_HOME and SVC_PORT", () => {
  it("node --help shows the defaults", async () => {
    const r = run(["node", "--help"], {})
    expect(await r.exited).toBe(0)
    expect(r.stdout).toContain("[default: http://127.0.0.1:$SVC_PORT, i.e. http://127.0.0.1:8788 when SVC_PORT is unset]")
    expect(r.stdout).toContain("[default: $SVC_HOME/node-identity.json, i.e. ~/.svc/node-identity.json when SVC_HOME is unset]")
  })

  it("connects to 127.0.0.1:$SVC_PORT and keeps its identity in $SVC_HOME/node-identity.json", async () => {
    const gatewayHome = home()
    const gateway = run(["serve", "--port", "0"], { SVC_HOME: gatewayHome, SVC_ADMIN_TOKEN: TOKEN })
    let node: Run | undefined
    try {
      const info = await started(gateway)
      const nodeHome = join(home(), "node-home")
      mkdirSync(nodeHome)
      // HOME elsewhere, so the old default (~/.svc) would be visible as a miss, not a write into the real home.
      node = run(["node"], { HOME: home(), SVC_HOME: nodeHome, SVC_PORT: new URL(info.url).port, SVC_ADMIN_TOKEN: TOKEN })
      // The SDK's pairing notice and the command's own line race (the pairing request may be answered first).
      await eventually(
        () => node!.stdout.includes("pending operator approval") && node!.stdout.includes("demo node connected to"),
        "the demo node to connect and wait for approval"
      )
      expect(node.stdout).toContain(`demo node connected to ${info.url} (identity ${join(nodeHome, "node-identity.json")})`)
      expect(statSync(join(nodeHome, "node-identity.json")).mode & 0o777).toBe(0o600)
    } finally {
      node?.child.kill("SIGKILL")
      gateway.child.kill("SIGKILL")
    }
  })
})
