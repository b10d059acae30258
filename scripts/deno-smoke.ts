/**
 * Smoke test of the gateway under Deno, run by Deno itself:
 *
 * ```sh
 * npx deno task smoke                       # = deno run -A scripts/deno-smoke.ts
 * SVC_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx deno task smoke
 * ```
 *
 * Starts `src/main.ts serve` under Deno as a child process, with the same
 * permission flags as the `start` task of deno.json, a fresh `SVC_HOME`, a
 * known admin token and SQLite; waits for `GET /healthz`; then checks health,
 * an authenticated policy check (and the 401 without a token), issuing a
 * device token and using it, and a WebSocket handshake plus requests with the
 * project's own client SDK (which runs under Deno here too).
 *
 * When `SVC_TEST_DATABASE_URL` points at a reachable PostgreSQL, a second
 * gateway runs against a throwaway database `svc_smoke_<random>` created on
 * that server and dropped afterwards (nothing is left in the shared
 * database). Unset or unreachable: that part is skipped with a notice.
 *
 * Also runs `deno task start --help` and `deno task node --help`, so a task
 * that cannot start fails here.
 *
 * Prints one line per check (`ok  …` / `FAIL …`) and a closing
 * `deno-smoke: N passed, N failed` (`, 1 skipped` without PostgreSQL); exits
 * 1 on any failure, after printing the tail of the gateway's output. Child
 * processes are always stopped (also on SIGINT/SIGTERM). Tokens are never
 * printed.
 */
import { Duration, Effect } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import * as PgClient from "../layers/storage/PgClient.ts"
import { GatewayClient, loadOrCreateDeviceIdentity } from "../src/client/index.ts"

const ROOT = new URL("..", import.meta.url)
const STARTUP_DEADLINE_MS = 60_000
const REQUEST_TIMEOUT_MS = 10_000
const STOP_TIMEOUT_MS = 10_000
const TAIL_LINES = 40

// Deno's fetch honours HTTP(S)_PROXY: keep the requests to the local gateways off any proxy.
for (const name of ["NO_PROXY", "no_proxy"]) {
  const current = Deno.env.get(name)
  Deno.env.set(name, [current, "127.0.0.1", "localhost", "::1"].filter((part) => part !== undefined && part !== "").join(","))
}

// ---------------------------------------------------------------------------
// Output: one line per check, secrets redacted from everything printed
// ---------------------------------------------------------------------------

const secrets = new Set<string>()
const redact = (text: string): string => {
  let out = text
  for (const secret of secrets) out = out.replaceAll(secret, "<redacted>")
  return out
}
let interrupted = false
const print = (line: string): void => {
  if (!interrupted) console.log(redact(line))
}

let passed = 0
let failed = 0
let skipped = 0

/** The messages along an error's `cause` chain (SqlError wraps the server's own message). */
const describeError = (error: unknown): string => {
  const messages: Array<string> = []
  let current = error as { message?: unknown; cause?: unknown } | undefined
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    if (typeof current.message === "string" && current.message !== "" && !messages.includes(current.message)) {
      messages.push(current.message)
    }
    current = current.cause as typeof current
  }
  return messages.length > 0 ? messages.join(": ") : String(error)
}

/** Runs one check; a throw (or rejection) is a failure whose message is printed. */
const check = async <A>(name: string, body: () => A | Promise<A>): Promise<A | undefined> => {
  try {
    const value = await body()
    passed++
    print(`ok   ${name}`)
    return value
  } catch (error) {
    failed++
    print(`FAIL ${name}: ${describeError(error)}`)
    return undefined
  }
}

const expect = (condition: boolean, message: string): void => {
  if (!condition) throw new Error(message)
}

const describeBody = (text: string): string => (text.length > 300 ? `${text.slice(0, 300)}…` : text)

// ---------------------------------------------------------------------------
// The gateway child process
// ---------------------------------------------------------------------------

/**
 * The permission flags of deno.json's `start` task
 * (`<…>/deno run <flags> src/main.ts serve`), so the smoke runs the gateway
 * as `deno task start` does.
 */
const gatewayPermissionFlags = async (): Promise<Array<string>> => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT))) as { tasks?: Record<string, unknown> }
  const task = config.tasks?.["start"]
  const command = typeof task === "string" ? task : (task as { command?: unknown } | undefined)?.command
  const words = typeof command === "string" ? command.trim().split(/\s+/) : []
  const entry = words.indexOf("src/main.ts")
  if (!/(^|\/)deno$/.test(words[0] ?? "") || words[1] !== "run" || entry < 2 || words[entry + 1] !== "serve") {
    throw new Error(`expected the start task to read "…deno run <flags> src/main.ts serve", got ${JSON.stringify(command)}`)
  }
  return words.slice(2, entry)
}

/** `deno task <task> --help`: the task finds a working deno and the CLI loads with the task's permissions. */
const checkTaskHelp = (task: "start" | "node", usage: string) =>
  check(`deno task ${task} --help exits 0 and prints "${usage}"`, async () => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["task", task, "--help"],
      cwd: ROOT,
      env: childEnv({ NO_COLOR: "1" }),
      clearEnv: true,
      stdin: "null"
    }).output()
    const text = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr)
    expect(output.success && text.includes(usage), `exit code ${output.code}: ${describeBody(text.trim())}`)
  })

/** The last lines of a stream, drained continuously so the child never blocks on a full pipe. */
class Tail {
  readonly lines: Array<string> = []
  private partial = ""
  readonly done: Promise<void>

  constructor(stream: ReadableStream<Uint8Array>) {
    this.done = (async () => {
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        const parts = (this.partial + chunk).split("\n")
        this.partial = parts.pop() ?? ""
        this.push(parts)
      }
      if (this.partial !== "") this.push([this.partial])
    })().catch(() => undefined)
  }

  private push(lines: ReadonlyArray<string>): void {
    this.lines.push(...lines)
    if (this.lines.length > TAIL_LINES) this.lines.splice(0, this.lines.length - TAIL_LINES)
  }
}

interface Gateway {
  readonly label: string
  readonly url: string
  readonly child: Deno.ChildProcess
  readonly stdout: Tail
  readonly stderr: Tail
  exit: Deno.CommandStatus | undefined
}

const running = new Set<Gateway>()
/** Clean-ups that an interrupt (SIGINT/SIGTERM) must still run after stopping the gateways. */
const onInterrupt = new Set<() => Promise<unknown>>()

const freePort = (): number => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 })
  const port = (listener.addr as Deno.NetAddr).port
  listener.close()
  return port
}

/** The environment without any `SVC_*` variable of the caller, plus `extra`. */
const childEnv = (extra: Record<string, string>): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(Deno.env.toObject())) if (!key.startsWith("SVC_")) env[key] = value
  return { ...env, ...extra }
}

const startGateway = (label: string, flags: ReadonlyArray<string>, env: Record<string, string>): Gateway => {
  const port = freePort()
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", ...flags, "src/main.ts", "serve", "--port", String(port)],
    cwd: ROOT,
    env: childEnv(env),
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped"
  }).spawn()
  const gateway: Gateway = {
    label,
    url: `http://127.0.0.1:${port}`,
    child,
    stdout: new Tail(child.stdout),
    stderr: new Tail(child.stderr),
    exit: undefined
  }
  void child.status.then((status) => {
    gateway.exit = status
  })
  running.add(gateway)
  return gateway
}

/** Polls `GET /healthz` until it answers 200, the child exits, or the deadline passes. */
const waitHealthy = async (gateway: Gateway): Promise<number> => {
  const started = Date.now()
  let last = "no answer"
  while (Date.now() - started < STARTUP_DEADLINE_MS) {
    if (gateway.exit !== undefined) throw new Error(`gateway exited with code ${gateway.exit.code} before it was healthy`)
    try {
      const response = await fetch(`${gateway.url}/healthz`, { signal: AbortSignal.timeout(2_000) })
      await response.body?.cancel()
      if (response.status === 200) return Date.now() - started
      last = `status ${response.status}`
    } catch (error) {
      last = describeError(error) // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`no 200 from ${gateway.url}/healthz within ${STARTUP_DEADLINE_MS / 1000} s (last attempt: ${last})`)
}

/** SIGTERM, then SIGKILL after a grace period; resolves with the exit status. */
const stopGateway = async (gateway: Gateway): Promise<Deno.CommandStatus> => {
  if (gateway.exit === undefined) {
    try {
      gateway.child.kill("SIGTERM")
    } catch {
      // already gone
    }
    let timer: ReturnType<typeof setTimeout> | undefined
    const timedOut = await Promise.race([
      gateway.child.status.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), STOP_TIMEOUT_MS)))
    ])
    clearTimeout(timer)
    if (timedOut) {
      try {
        gateway.child.kill("SIGKILL")
      } catch {
        // already gone
      }
    }
  }
  const status = await gateway.child.status
  await Promise.all([gateway.stdout.done, gateway.stderr.done])
  running.delete(gateway)
  return status
}

const printTail = (gateway: Gateway): void => {
  for (const [name, tail] of [["stderr", gateway.stderr], ["stdout", gateway.stdout]] as const) {
    print(`---- ${gateway.label} gateway ${name} (last ${tail.lines.length} lines) ----`)
    for (const line of tail.lines) print(`  ${line}`)
  }
  print(`---- end of ${gateway.label} gateway output ----`)
}

/** Stops every child still running (failure paths, signals). */
const stopAll = async (): Promise<void> => {
  await Promise.all([...running].map((gateway) => stopGateway(gateway).catch(() => undefined)))
}

// ---------------------------------------------------------------------------
// HTTP helpers
// ---------------------------------------------------------------------------

const request = async (
  gateway: Gateway,
  method: "GET" | "POST",
  path: string,
  options: { readonly token?: string; readonly body?: unknown } = {}
): Promise<{ readonly status: number; readonly text: string; readonly json: Record<string, unknown> | undefined }> => {
  const headers: Record<string, string> = {}
  if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`
  if (options.body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(`${gateway.url}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
  })
  const text = await response.text()
  let json: Record<string, unknown> | undefined
  try {
    const parsed: unknown = JSON.parse(text)
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) json = parsed as Record<string, unknown>
  } catch {
    // not JSON: checks report the text
  }
  return { status: response.status, text, json }
}

const POLICY_REQUEST = {
  spend: { amount_minor_units: 8750, currency: "EUR" },
  pii: { categories: [] },
  legal: { flags: [] }
}

const checkHealth = (gateway: Gateway) =>
  check(`${gateway.label}: GET /healthz -> 200 {"status":"ok","is_exposed":false}`, async () => {
    const { status, text, json } = await request(gateway, "GET", "/healthz")
    expect(status === 200, `status ${status}, body ${describeBody(text)}`)
    expect(
      json?.status === "ok" && json?.is_exposed === false && Object.keys(json).length === 2,
      `body ${describeBody(text)}`
    )
  })

const checkPolicy = (gateway: Gateway, adminToken: string) =>
  check(`${gateway.label}: POST /policy/check (admin token) -> 200 decision "allow"`, async () => {
    const { status, text, json } = await request(gateway, "POST", "/policy/check", { token: adminToken, body: POLICY_REQUEST })
    expect(status === 200, `status ${status}, body ${describeBody(text)}`)
    expect(json?.decision === "allow", `decision ${JSON.stringify(json?.decision)} (expected "allow"), body ${describeBody(text)}`)
  })

const checkIssue = (gateway: Gateway, adminToken: string) =>
  check(`${gateway.label}: POST /auth/device-tokens/issue -> 201 with a token`, async () => {
    const { status, text, json } = await request(gateway, "POST", "/auth/device-tokens/issue", {
      token: adminToken,
      body: { device_id: "deno-smoke", role: "client", scopes: ["operator.read"] }
    })
    const token = json?.token
    if (typeof token === "string" && token !== "") secrets.add(token)
    expect(status === 201, `status ${status}, body ${describeBody(redact(text))}`)
    if (typeof token !== "string" || token === "") throw new Error("no token in the answer")
    return { token, tokenId: String(json?.token_id) }
  })

// ---------------------------------------------------------------------------
// The runs
// ---------------------------------------------------------------------------

/** Starts a gateway, runs `checks` once it is healthy, stops it; prints its output tail when a check failed. */
const withGateway = async (
  label: string,
  flags: ReadonlyArray<string>,
  env: Record<string, string>,
  checks: (gateway: Gateway) => Promise<void>
): Promise<void> => {
  const failedBefore = failed
  const gateway = startGateway(label, flags, env)
  try {
    const healthy = await check(`${label}: gateway under Deno answers /healthz`, () => waitHealthy(gateway))
    if (healthy !== undefined) await checks(gateway)
  } finally {
    const exitedEarly = gateway.exit
    const status = await stopGateway(gateway)
    await check(`${label}: gateway stops on SIGTERM with exit code 0`, () => {
      expect(exitedEarly === undefined, `it had already exited (code ${exitedEarly?.code})`)
      expect(status.success, `exit code ${status.code}${status.signal === null ? "" : `, signal ${status.signal}`}`)
    })
    if (failed > failedBefore) printTail(gateway)
  }
}

const sqliteRun = async (flags: ReadonlyArray<string>, adminToken: string, home: string): Promise<void> => {
  await withGateway("sqlite", flags, {
    SVC_HOME: join(home, "sqlite"),
    SVC_ADMIN_TOKEN: adminToken,
    SVC_LOG_LEVEL: "Info"
  }, async (gateway) => {
    await checkHealth(gateway)
    await checkPolicy(gateway, adminToken)
    await check(`${gateway.label}: POST /policy/check without a token -> 401`, async () => {
      const { status, text } = await request(gateway, "POST", "/policy/check", { body: POLICY_REQUEST })
      expect(status === 401, `status ${status}, body ${describeBody(text)}`)
    })
    const issued = await checkIssue(gateway, adminToken)
    await check(`${gateway.label}: GET /presence with the device token -> 200`, async () => {
      expect(issued !== undefined, "no device token (issue failed)")
      const { status, text } = await request(gateway, "GET", "/presence", { token: issued!.token })
      expect(status === 200, `status ${status}, body ${describeBody(text)}`)
    })
    await check(`${gateway.label}: WebSocket SDK (GatewayClient under Deno): handshake, ping, presence.beacon, close`, async () => {
      const identity = await loadOrCreateDeviceIdentity(join(home, "client", "identity.json"))
      const mode = (await Deno.stat(join(home, "client", "identity.json"))).mode
      expect(mode !== null && (mode & 0o777) === 0o600, `identity file mode ${mode?.toString(8)}, expected 600`)
      const client = new GatewayClient({
        url: gateway.url,
        token: adminToken,
        role: "client",
        identity,
        reconnect: false,
        requestTimeoutMs: REQUEST_TIMEOUT_MS,
        handshakeTimeoutMs: REQUEST_TIMEOUT_MS
      })
      try {
        const session = await client.connect()
        expect(session.role === "client", `session role ${session.role}`)
        expect(session.device_id === identity.device_id, "session device_id is not the identity's")
        await client.request("ping")
        const { entry } = await client.request("presence.beacon", { host: "deno-smoke", mode: "probe" })
        expect(entry.host === "deno-smoke", `presence entry host ${entry.host}`)
      } finally {
        await client.close()
      }
      expect(client.state === "closed", `client state ${client.state} after close()`)
    })
  })
}

type Sql = SqlClient.SqlClient

/** Runs `f` with a one-connection client on `url` (the project's own PgClient layer), within a timeout. */
const withPg = <A>(url: string, f: (sql: Sql) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(
    Effect.flatMap(SqlClient.SqlClient, f).pipe(
      Effect.provide(PgClient.layer({ url, maxConnections: 1, applicationName: "svc-deno-smoke" })),
      Effect.timeout(Duration.seconds(15))
    )
  )

const postgresRun = async (flags: ReadonlyArray<string>, adminToken: string, home: string): Promise<void> => {
  const serverUrl = Deno.env.get("SVC_TEST_DATABASE_URL") || undefined
  if (serverUrl === undefined) {
    skipped++
    print("skip postgres: SVC_TEST_DATABASE_URL is not set")
    return
  }
  try {
    await withPg(serverUrl, (sql) => sql`SELECT 1`)
  } catch (error) {
    skipped++
    print(`skip postgres: cannot connect to ${PgClient.redactUrl(serverUrl)}: ${describeError(error)}`)
    return
  }

  const database = `svc_smoke_${randomBytes(6).toString("hex")}`
  const created = await check(`postgres: CREATE DATABASE ${database} (throwaway)`, () =>
    withPg(serverUrl, (sql) => sql`CREATE DATABASE ${sql(database)}`).then(() => true))
  if (created === undefined) return
  const dropDatabase = () => withPg(serverUrl, (sql) => sql`DROP DATABASE IF EXISTS ${sql(database)}`)
  onInterrupt.add(dropDatabase)
  const databaseUrl = new URL(serverUrl)
  databaseUrl.pathname = `/${database}`
  try {
    await withGateway("postgres", flags, {
      SVC_HOME: join(home, "postgres"),
      SVC_ADMIN_TOKEN: adminToken,
      SVC_DATABASE_URL: databaseUrl.href,
      SVC_LOG_LEVEL: "Info"
    }, async (gateway) => {
      await checkHealth(gateway)
      await checkPolicy(gateway, adminToken)
      const issued = await checkIssue(gateway, adminToken)
      await check(`${gateway.label}: the issued token's row is in ${database}.device_tokens`, async () => {
        expect(issued !== undefined, "no device token (issue failed)")
        const rows = await withPg(databaseUrl.href, (sql) =>
          sql<{ n: number | string }>`SELECT count(*) AS n FROM device_tokens WHERE token_id = ${issued!.tokenId}`)
        expect(Number(rows[0]?.n) === 1, `${rows[0]?.n ?? 0} rows for the issued token_id`)
      })
    })
  } finally {
    await check(`postgres: DROP DATABASE ${database}`, () => dropDatabase().then(() => undefined))
    onInterrupt.delete(dropDatabase)
  }
}

const main = async (): Promise<void> => {
  const adminToken = randomBytes(32).toString("hex")
  secrets.add(adminToken)
  const home = await Deno.makeTempDir({ prefix: "svc-deno-smoke-" })
  const removeHome = () => Deno.remove(home, { recursive: true })
  onInterrupt.add(removeHome)
  const started = Date.now()
  print(`deno-smoke: Deno ${Deno.version.deno}, SVC_HOME under ${home}`)
  try {
    const flags = await check("deno.json: the start task's permission flags", gatewayPermissionFlags)
    await checkTaskHelp("start", "svc-gateway serve")
    await checkTaskHelp("node", "svc-gateway node")
    if (flags !== undefined) {
      await sqliteRun(flags, adminToken, home)
      await postgresRun(flags, adminToken, home)
    }
  } catch (error) {
    failed++
    print(`FAIL deno-smoke: ${error instanceof Error ? error.stack ?? error.message : String(error)}`)
  } finally {
    await stopAll()
    await removeHome().catch(() => undefined)
    onInterrupt.delete(removeHome)
  }
  print(`deno-smoke: took ${((Date.now() - started) / 1000).toFixed(1)} s`)
  print(`deno-smoke: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
  Deno.exit(failed > 0 || passed === 0 ? 1 : 0)
}

// Interrupted (Ctrl-C, CI timeout): stop the gateways before leaving.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    print(`deno-smoke: ${signal}, stopping the gateways`)
    interrupted = true
    void (async () => {
      await stopAll()
      for (const cleanUp of onInterrupt) await cleanUp().catch(() => undefined)
    })().finally(() => Deno.exit(signal === "SIGINT" ? 130 : 143))
  })
}

await main()
