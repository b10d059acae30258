/**
 * `svc-gateway snapshot export|import` as a user runs them (the bundled CLI,
 * dist/cli/main.mjs, built by `npm test`), and the documented move from
 * SQLite to PostgreSQL (docs/operations.md): a SQLite gateway with an
 * approval, a pairing and a paused run is exported by the CLI; a second
 * gateway on PostgreSQL with import enabled imports the bundle over HTTP and
 * serves the same approvals, pairings and runs; the CLI imports the same
 * bundle into a fresh SQLite home, which `serve` then serves. Exit codes and
 * messages of every refusal.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as PgClient from "../layers/storage/PgClient.ts"
import { SNAPSHOT_TABLES } from "../src/app/tables.ts"
import { home, run, type Run, started } from "./support/cli.ts"
import { eventually } from "./support/eventually.ts"
import { connectPeer, makeIdentity } from "./support/wsPeer.ts"

const TOKEN = "c".repeat(64)
const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" }
const api = async (url: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${url}${path}`, { method, headers: auth, ...(body === undefined ? {} : { body: JSON.stringify(body) }) })
  return { status: res.status, body: await res.json() as any }
}
const finished = async (r: Run) => ({ code: await r.exited, stdout: r.stdout, stderr: r.stderr })
const snapshot = (args: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => finished(run(["snapshot", ...args], env))

/** What the user sees on a gateway: approvals, pairings and the run. */
const view = async (url: string, run_id: string) => ({
  approvals: (await api(url, "GET", "/approvals")).body,
  pairings: (await api(url, "GET", "/pairings")).body,
  run: (await api(url, "GET", `/workflow/runs/${run_id}`)).body
})

const serve = async (env: Record<string, string | undefined>) => {
  const r = run(["serve", "--port", "0"], { SVC_ADMIN_TOKEN: TOKEN, SVC_ENGINE_API_ENABLED: "1", ...env })
  try {
    return { r, url: (await started(r)).url! }
  } catch (error) {
    r.child.kill("SIGKILL")
    throw error
  }
}
const stop = async (r: Run) => {
  r.child.kill("SIGTERM")
  await r.exited
}

describe("svc-gateway snapshot", () => {
  const source = home()
  const bundleFile = join(home(), "bundle.json")
  let seen: Awaited<ReturnType<typeof view>>
  let run_id: string

  beforeAll(async () => {
    const { r, url } = await serve({ SVC_HOME: source })
    try {
      expect((await api(url, "POST", "/plan", { request_id: "cli-snapshot", trigger: { channel: "telegram", thread_id: "t", message: { text: "hi" } } })).status).toBe(200)
      const operator = (await connectPeer(url, TOKEN)).peer
      const identity = makeIdentity()
      const node = (await connectPeer(url, TOKEN, { role: "node", identity, capabilities: [] })).peer
      await operator.next((m) => m?.type === "pairing.requested" && m.payload.pairing.node.node_id === identity.deviceId)
      node.ws.close()
      operator.ws.close()
      run_id = (await api(url, "POST", "/workflow/run", { key: "agent:default:main", steps: [{ type: "Confirm" }] })).body.run_id
      await eventually(async () => (await api(url, "GET", `/workflow/runs/${run_id}`)).body.run?.status === "paused", "the run to pause", 30_000)
      seen = await view(url, run_id)
      expect(seen.approvals.approvals.length).toBe(2)
      expect(seen.pairings.pairings.length).toBe(1)
      // Exported while the gateway runs (SQLite in WAL mode: a consistent read).
      const exported = await snapshot(["export", "--home", source, "--out", bundleFile])
      expect(exported).toMatchObject({ code: 0, stdout: "" })
      expect(exported.stderr).toBe(
        "svc-gateway snapshot export: warning: 1 workflow run(s) are running or paused; a restore replays them from their first step " +
          "(docs/operations.md \"Runs in flight\")\n" +
          `svc-gateway snapshot export: ${exported.stderr.match(/(\d+) rows/)?.[1]} rows of ${SNAPSHOT_TABLES.length} tables written to ${bundleFile}\n`
      )
    } finally {
      await stop(r)
    }
  }, 60_000)

  it("`snapshot --help` answers from the build-time cache what the CLI prints, naming both subcommands", async () => {
    const cached = await snapshot(["--help"])
    expect(cached.code).toBe(0)
    expect(cached.stdout).toMatch(/export\s+Export every stateful table/)
    expect(cached.stdout).toMatch(/import\s+Import a bundle/)
    expect((await snapshot(["--help"], { SVC_CLI_NO_HELP_CACHE: "1" })).stdout).toBe(cached.stdout)
  })

  it("export writes the bundle (mode 0600) or prints it to stdout; --tables selects tables", async () => {
    expect(statSync(bundleFile).mode & 0o777).toBe(0o600)
    const bundle = JSON.parse(readFileSync(bundleFile, "utf8"))
    expect(bundle).toMatchObject({ format: "svc.snapshot.v2", db_kind: "sqlite" })
    const printed = await snapshot(["export", "--tables", "approvals,node_pairings"], { SVC_HOME: source })
    expect(printed.code).toBe(0)
    const partial = JSON.parse(printed.stdout)
    expect(Object.keys(partial.tables)).toEqual(["approvals", "node_pairings"])
    expect(partial.tables.approvals).toEqual(bundle.tables.approvals)
  })

  it("refusals exit 1 with the reason on stderr", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, RegExp]> = [
      [["export", "--home", source, "--tables", "facts"], /^svc-gateway snapshot export: invalid_request: unknown table 'facts'\n$/],
      [["export", "--home", home()], /^svc-gateway snapshot export: no database at .*gateway\.db \(set --home or --database-url\)\n$/],
      [["import", "--home", home(), "--file", bundleFile, "--confirm", "yes"], /^svc-gateway snapshot import: invalid_request: confirm: expected "IMPORT" to confirm the import\n$/],
      [["import", "--home", home(), "--file", join(home(), "missing.json"), "--confirm", "IMPORT"], /^svc-gateway snapshot import: cannot read .*missing\.json: /],
      [["import", "--home", source, "--file", bundleFile, "--confirm", "IMPORT"], /^svc-gateway snapshot import: import_refused: import refused: the target tables .* are not empty/]
    ]
    for (const [args, message] of cases) {
      const result = await snapshot(args)
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(message)
      expect(result.stdout).toBe("")
    }
    // A row the gateway could not read back (a device token with an unknown role): exit 1, nothing written.
    const bundle = JSON.parse(readFileSync(bundleFile, "utf8"))
    const god = { token_id: "t-1", token_digest: "d".repeat(64), device_id: "ops", role: "god", scopes: ["operator.read"], issued_at: "2026-01-01T00:00:00.000Z", expires_at: null, revoked_at: null }
    const godFile = join(home(), "god.json")
    writeFileSync(godFile, JSON.stringify({ ...bundle, tables: { ...bundle.tables, device_tokens: { columns: Object.keys(god), rows: [god] } } }))
    const target = home()
    const refused = await snapshot(["import", "--home", target, "--file", godFile, "--confirm", "IMPORT"])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^svc-gateway snapshot import: invalid_request: bundle\.tables\.device_tokens\.rows\[0\]\.role: expected /)
    const after = await snapshot(["export", "--home", target])
    expect(after.code).toBe(0)
    for (const [name, data] of Object.entries(JSON.parse(after.stdout).tables as Record<string, { rows: Array<unknown> }>)) {
      // Only what the empty home's own start would write (nothing: the CLI never started a gateway there).
      expect([name, data.rows]).toEqual([name, []])
    }
    const notJson = join(home(), "bad.json")
    writeFileSync(notJson, "{\"format\":")
    const bad = await snapshot(["import", "--home", home(), "--file", notJson, "--confirm", "IMPORT"])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^svc-gateway snapshot import: .*bad\.json: /)
  }, 120_000)

  it("imports into a fresh SQLite home; serve then shows the same approvals, pairings and run", async () => {
    const target = home()
    writeFileSync(join(target, "secrets.master.key"), readFileSync(join(source, "secrets.master.key")), { mode: 0o600 })
    const imported = await snapshot(["import", "--home", target, "--file", bundleFile, "--confirm", "IMPORT"])
    expect(imported.code).toBe(0)
    expect(JSON.parse(imported.stdout)).toMatchObject({ status: "ok", format: "svc.snapshot.v2", inserted_by_table: { approvals: 2, node_pairings: 1, workflow_runs: 1 } })
    expect(existsSync(join(target, "gateway.db"))).toBe(true)
    const { r, url } = await serve({ SVC_HOME: target })
    try {
      // The paused run is re-attached at start; its pause is asked again (docs/operations.md "Runs in flight").
      const now = await view(url, run_id)
      expect(now.pairings).toEqual(seen.pairings)
      expect(now.run.run).toEqual(seen.run.run)
      for (const approval of seen.approvals.approvals) expect(now.approvals.approvals).toContainEqual(approval)
    } finally {
      await stop(r)
    }
  }, 120_000)

  const pgUrl = process.env.SVC_TEST_DATABASE_URL
  describe.skipIf(pgUrl === undefined)("moving from SQLite to PostgreSQL", () => {
    const database = `svc_snapshot_${randomBytes(4).toString("hex")}`
    const admin = <A, E>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
      Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url: pgUrl!, maxConnections: 1 }))) as Effect.Effect<A, never>)
    const targetUrl = () => {
      const url = new URL(pgUrl!)
      url.pathname = `/${database}`
      return url.toString()
    }
    beforeAll(() => admin((sql) => sql.unsafe(`CREATE DATABASE ${database}`)))
    afterAll(() => admin((sql) => sql.unsafe(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`)))

    it("a second gateway on PostgreSQL with import enabled imports the bundle and serves the same approvals, pairings and runs", async () => {
      const { r, url } = await serve({
        SVC_HOME: home(),
        SVC_DATABASE_URL: targetUrl(),
        SVC_SNAPSHOT_IMPORT_ENABLED: "1",
        SVC_SECRETS_MASTER_KEY_PATH: join(source, "secrets.master.key")
      })
      try {
        const bundle = JSON.parse(readFileSync(bundleFile, "utf8"))
        const imported = await api(url, "POST", "/snapshot/import", { confirm: "IMPORT", bundle })
        expect(imported.status).toBe(200)
        expect(imported.body.inserted_by_table).toMatchObject({ approvals: 2, node_pairings: 1, workflow_runs: 1 })
        expect(await view(url, run_id)).toEqual(seen)
        // And back out again with the CLI, from PostgreSQL: the same rows.
        const exported = await snapshot(["export", "--database-url", targetUrl()])
        expect(exported.code).toBe(0)
        const again = JSON.parse(exported.stdout)
        expect(again.db_kind).toBe("postgres")
        expect(again.tables).toEqual(bundle.tables)
      } finally {
        await stop(r)
      }
    })
  })
})
