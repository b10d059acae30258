/**
 * The real gateway as a child process (`node dist/cli/main.mjs serve`) for
 * durability tests, on a database that outlives it: SQLite in `$SVC_HOME`
 * (`gateway.db`), or a fresh PostgreSQL schema selected through the URL's
 * `options=-c search_path=<schema>`. `npm test` builds the bundle first.
 */
import * as Effect from "effect/Effect"
import * as SqlClient from "effect/sql/SqlClient"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgClient from "../../layers/storage/PgClient.ts"
import { postgresUrl } from "../support/databases.ts"
import { run as runCli, type Run } from "../support/cli.ts"

/** The admin token of durability gateways (64 hex characters). */
export const ADMIN_TOKEN = "d".repeat(32) + "e".repeat(32)

/** Lets Http steps to 127.0.0.1 run without a policy pause. */
const POLICY = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
`

/** A state directory and database shared by successive gateway processes. */
export interface DurableHome {
  readonly name: string
  readonly home: string
  /** Extra environment (SVC_DATABASE_URL on PostgreSQL). */
  readonly env: Record<string, string>
  /** Removes the directory (and the PostgreSQL schema). */
  readonly drop: () => Promise<void>
}

const withPostgres = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url, maxConnections: 1 }))))

const makeHome = (): string => {
  const home = mkdtempSync(join(tmpdir(), "svc-durability-"))
  writeFileSync(join(home, "policy.yml"), POLICY)
  return home
}

/** SQLite at `$SVC_HOME/gateway.db` (the default). */
export const sqliteHome = async (): Promise<DurableHome> => {
  const home = makeHome()
  return { name: "sqlite", home, env: {}, drop: async () => rmSync(home, { recursive: true, force: true }) }
}

/** A fresh schema of the PostgreSQL database at `url`, dropped by `drop`. */
export const postgresHome = async (url: string): Promise<DurableHome> => {
  const schema = `svc_test_${randomBytes(6).toString("hex")}`
  await withPostgres(url, (sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  const withSchema = new URL(url)
  withSchema.searchParams.set("options", `-c search_path=${schema}`)
  const home = makeHome()
  return {
    name: "postgresql",
    home,
    env: { SVC_DATABASE_URL: withSchema.toString() },
    drop: async () => {
      rmSync(home, { recursive: true, force: true })
      await withPostgres(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`)
    }
  }
}

/** The backends of this run: SQLite always, PostgreSQL when `SVC_TEST_DATABASE_URL` is set. */
export const durableBackends: ReadonlyArray<{ readonly name: string; readonly make: () => Promise<DurableHome> }> = [
  { name: "sqlite", make: sqliteHome },
  // The opt-in `SVC_SQLITE_SYNCHRONOUS=NORMAL` survives a crash of the process too (a power loss is not tested).
  { name: "sqlite, synchronous NORMAL", make: async () => ({ ...(await sqliteHome()), env: { SVC_SQLITE_SYNCHRONOUS: "NORMAL" } }) },
  ...(postgresUrl === undefined ? [] : [{ name: "postgresql", make: () => postgresHome(postgresUrl!) }])
]

/** A running gateway process. */
export interface GatewayProcess {
  readonly process: Run
  readonly url: string
  /** Its stdout and stderr so far. */
  readonly output: () => string
  /** SIGKILL, then waits for the exit. */
  readonly kill: () => Promise<void>
}

/** Starts `serve --port 0` on `home` with the engine API on; waits (up to `timeoutMs`) for the start log. */
export const startGatewayProcess = async (home: DurableHome, timeoutMs = 30_000): Promise<GatewayProcess> => {
  const proc = runCli(["serve", "--port", "0"], {
    SVC_HOME: home.home,
    SVC_ADMIN_TOKEN: ADMIN_TOKEN,
    SVC_ENGINE_API_ENABLED: "1",
    // Every blocked step holds a slot until the kill: room for all of them (the default is 4).
    SVC_EXEC_CONCURRENCY: "16",
    ...home.env
  })
  const output = () => `--- stdout ---\n${proc.stdout}\n--- stderr ---\n${proc.stderr}`
  const kill = async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) proc.child.kill("SIGKILL")
    await proc.exited
  }
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const line = proc.stdout.split("\n").find((l) => l.includes("svc-gateway listening"))
    if (line !== undefined) return { process: proc, url: JSON.parse(line).annotations.url, output, kill }
    if (proc.child.exitCode !== null) break
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  await kill()
  throw new Error(`gateway did not start:\n${output()}`)
}

/** Authenticated JSON request to a gateway: status and parsed body. */
export const call = async (
  gw: GatewayProcess,
  method: "GET" | "POST",
  path: string,
  body?: unknown
): Promise<{ status: number; body: any }> => {
  const res = await fetch(gw.url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed }
}
