/**
 * The `svc-gateway serve` command as a user runs it (compiled dist/, as
 * `npm start` does): configuration errors, the start log, SQLite and
 * PostgreSQL, authenticated requests, and a clean SIGTERM shutdown.
 */
import { describe, expect, it } from "@effect/vitest"
import { request as httpRequest } from "node:http"
import { existsSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { home, run, type Run, started } from "./support/cli.ts"
import { eventually } from "./support/eventually.ts"

describe("svc-gateway help and version", () => {
  const output = (args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    new Promise<string>((resolve, reject) => {
      const r = run(args, env)
      r.exited.then((code) => (code === 0 ? resolve(r.stdout) : reject(new Error(`exit ${code}: ${r.stderr}`))))
    })

  it.each([[["--help"]], [["-h"]], [["--version"]], [["serve", "--help"]], [["node", "-h"]]])(
    "%j answers from the build-time cache exactly what the CLI itself prints",
    async (args) => {
      const cached = await output(args)
      expect(cached.length).toBeGreaterThan(10)
      expect(cached).toBe(await output(args, { SVC_CLI_NO_HELP_CACHE: "1" }))
    }
  )
})

describe("svc-gateway serve: configuration errors exit non-zero with a clear message", () => {
  it.each([
    ["an invalid port", { SVC_PORT: "not-a-port" }, /SVC_PORT|port/i],
    ["auth off on a non-loopback bind", { SVC_AUTH: "off", SVC_HOST: "0.0.0.0" }, /SVC_AUTH=off is only allowed on a loopback bind/],
    ["a short admin token on a non-loopback bind", { SVC_HOST: "0.0.0.0", SVC_ADMIN_TOKEN: "short" }, /at least 32 characters/],
    ["an unsupported database URL", { SVC_DATABASE_URL: "mysql://x" }, /SVC_DATABASE_URL/],
    ["an unknown auth value", { SVC_AUTH: "maybe" }, /SVC_AUTH|auth/i],
    ["an unreachable PostgreSQL", { SVC_DATABASE_URL: "postgres://postgres@127.0.0.1:1/test" }, /failed to start/]
  ])("%s", async (_name, env, message) => {
    const r = run(["serve"], { SVC_HOME: home(), SVC_PORT: "0", ...env })
    const code = await r.exited
    expect(code).not.toBe(0)
    expect(r.stderr + r.stdout).toMatch(message)
    expect(r.stdout).not.toContain("svc-gateway listening")
  })
})

describe("svc-gateway serve on SQLite", () => {
  it("generates the admin token, logs where it is (never its value), serves, and shuts down cleanly", async () => {
    const dir = home()
    const r = run(["serve", "--port", "0"], { SVC_HOME: dir })
    try {
      const info = await started(r)
      const token = readFileSync(join(dir, "admin-token"), "utf8").trim()
      expect(info.database_kind).toBe("sqlite")
      expect(info.database).toBe(join(dir, "gateway.db"))
      expect(info.admin_token).toContain(join(dir, "admin-token"))
      const health = await fetch(`${info.url}/healthz`)
      expect(await health.json()).toEqual({ status: "ok", is_exposed: false })
      const check = await fetch(`${info.url}/policy/check`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ spend: { amount_minor_units: 60000, currency: "USD" } })
      })
      expect(check.status).toBe(200)
      expect((await check.json() as { decision: string }).decision).toBe("deny")
      expect(r.stdout + r.stderr).not.toContain(token)
      r.child.kill("SIGTERM")
      expect(await r.exited).toBe(0)
      // The database was checkpointed and closed: nothing is left in the WAL.
      const wal = join(dir, "gateway.db-wal")
      expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0)
    } finally {
      r.child.kill("SIGKILL")
    }
  })

  it("reuses the token file on restart and honours SVC_ADMIN_TOKEN", async () => {
    const dir = home()
    const r = run(["serve", "--port", "0"], { SVC_HOME: dir, SVC_ADMIN_TOKEN: "e".repeat(40) })
    try {
      const info = await started(r)
      expect(info.admin_token).toBe("from SVC_ADMIN_TOKEN")
      expect(existsSync(join(dir, "admin-token"))).toBe(false)
      const res = await fetch(`${info.url}/openapi.json`, { headers: { authorization: `Bearer ${"e".repeat(40)}` } })
      expect(res.status).toBe(200)
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})

describe("svc-gateway serve drains in-flight requests on SIGTERM", () => {
  it("finishes a request whose body is still arriving when the signal comes, with Connection: close", async () => {
    const dir = home()
    const token = "d".repeat(64)
    const r = run(["serve", "--port", "0"], { SVC_HOME: dir, SVC_ADMIN_TOKEN: token })
    try {
      const info = await started(r)
      const url = new URL(info.url)
      let request: ReturnType<typeof httpRequest> | undefined
      const response = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        request = httpRequest({
          host: url.hostname,
          port: url.port,
          path: "/policy/check",
          method: "POST",
          // 100-continue: the gateway answers "100 Continue" once it has the headers, i.e. once the request is in flight.
          headers: { authorization: `Bearer ${token}`, "transfer-encoding": "chunked", expect: "100-continue" }
        }, (res) => {
          let body = ""
          res.on("data", (d) => (body += d))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }))
        })
        request.on("error", reject)
      })
      await new Promise((resolve) => request!.once("continue", resolve))
      request!.write("{\"spend\":{\"amount_minor_units\":")
      r.child.kill("SIGTERM")
      await eventually(() => r.stdout.includes("draining HTTP connections"), "the drain to start")
      expect(r.stdout).toMatch(/"in_flight":1/)
      request!.end("100,\"currency\":\"EUR\"}}")
      const res = await response
      expect(res.status).toBe(200)
      expect(res.connection).toBe("close")
      expect(JSON.parse(res.body).rules[0].outcome).toBe("allow")
      expect(await r.exited).toBe(0)
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})

describe("svc-gateway node (demo node) against svc-gateway serve", () => {
  it("waits for approval, stores its scoped token next to --identity, readies demo.echo, and restarts paired without a token", async () => {
    const dir = home()
    const token = "9".repeat(64)
    const identity = join(dir, "node-id.json")
    const gateway = run(["serve", "--port", "0"], { SVC_HOME: dir, SVC_ADMIN_TOKEN: token })
    let node: Run | undefined
    try {
      const info = await started(gateway)
      const auth = { authorization: `Bearer ${token}` }
      const readyNode = async () => {
        const body = await (await fetch(`${info.url}/connections`, { headers: auth })).json() as {
          connections: Array<{ role: string; ready_capabilities: Array<string> }>
        }
        return body.connections.find((c) => c.role === "node" && c.ready_capabilities.length > 0)
      }
      node = run(["node", "--url", info.url, "--identity", identity], { SVC_ADMIN_TOKEN: token })
      await eventually(() => node!.stdout.includes("pending operator approval"), "the demo node to wait for approval")
      const { pairings } = await (await fetch(`${info.url}/pairings?status=pending`, { headers: auth })).json() as {
        pairings: Array<{ pairing_id: number }>
      }
      expect(pairings).toHaveLength(1)
      const approved = await fetch(`${info.url}/pairings/${pairings[0]!.pairing_id}/approve`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ trust_level: "local", capability_allowlist: [{ id: "demo.echo", version: "1.0.0" }] })
      })
      expect(approved.status).toBe(200)
      await eventually(async () => (await readyNode()) !== undefined, "the paired demo node to be ready")
      expect((await readyNode())?.ready_capabilities).toEqual(["demo.echo"])
      expect(statSync(`${identity}.token`).mode & 0o777).toBe(0o600)
      const scoped = (JSON.parse(readFileSync(`${identity}.token`, "utf8")) as { scoped_token: string }).scoped_token
      expect(node.stdout).toContain("[node] paired: pairing")
      const output = node.stdout + node.stderr

      // Restarted without any token: the stored scoped token is enough.
      node.child.kill("SIGKILL")
      await node.exited
      await eventually(async () => (await readyNode()) === undefined, "the killed node to be gone")
      node = run(["node", "--url", info.url, "--identity", identity], {})
      await eventually(async () => (await readyNode()) !== undefined, "the restarted node to be ready")
      expect(node.stdout).toContain("with its scoped token")
      for (const text of [output, node.stdout + node.stderr]) {
        expect(text).not.toContain(token)
        expect(text).not.toContain(scoped)
      }
    } finally {
      node?.child.kill("SIGKILL")
      gateway.child.kill("SIGKILL")
    }
  })
})

const pgUrl = process.env.SVC_TEST_DATABASE_URL
describe.skipIf(pgUrl === undefined)("svc-gateway serve on PostgreSQL", () => {
  it("migrates and serves policy checks and device tokens", async () => {
    const r = run(["serve", "--port", "0"], { SVC_HOME: home(), SVC_DATABASE_URL: pgUrl, SVC_ADMIN_TOKEN: "f".repeat(64) })
    try {
      const info = await started(r)
      expect(info.database_kind).toBe("postgres")
      const auth = { authorization: `Bearer ${"f".repeat(64)}`, "content-type": "application/json" }
      const issued = await fetch(`${info.url}/auth/device-tokens/issue`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ device_id: "cli-pg", role: "client", scopes: ["operator.admin"] })
      })
      expect(issued.status).toBe(201)
      const { token } = await issued.json() as { token: string }
      const check = await fetch(`${info.url}/policy/check`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify({ pii: { categories: ["health"] }, spend: { amount_minor_units: 1, currency: "JPY" }, legal: { flags: [] } })
      })
      expect(check.status).toBe(200)
      expect((await check.json() as { decision: string }).decision).toBe("require_approval")
    } finally {
      r.child.kill("SIGKILL")
    }
  })
})
