/**
 * Gateway processes of one cluster for the cluster benchmark (issue 27 §5): N
 * `node dist/cli/main.mjs serve` on one fresh PostgreSQL schema with
 * `SVC_CLUSTER=1`, the same admin token, cluster secret and master key file,
 * each with its own state directory, HTTP port and runner port
 * (docs/scaling.md "What every instance needs"), plus the CPU time the
 * PostgreSQL server's processes used (when it runs on this machine).
 *
 * @module
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, onExit, processCpuSeconds, type ServerProcess, startServer } from "./processes.ts"
import { BENCH_ADMIN_TOKEN } from "./sample.ts"
import { createSchema, dropSchema } from "./workflow-pg.ts"

const MAIN = fileURLToPath(new URL("../cli/main.mjs", import.meta.url))
const CLUSTER_SECRET = "bench-cluster-secret-0123456789abcdef-0123456789"

/** Lets Http steps to the local target run without an approval (docs/policy-bundle.md). */
const POLICY_YML = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
`

/** Running instances on one schema. */
export interface BenchCluster {
  readonly instances: ReadonlyArray<ServerProcess>
  /** Stops every instance (SIGTERM), drops the schema and the state directories. */
  readonly close: () => Promise<void>
}

/**
 * Starts `count` instances (the first alone: it records the master key id) on a fresh schema of `url`; with
 * `cluster: false`, one plain PostgreSQL gateway (no `SVC_CLUSTER`), the reference the cluster's cost is read against.
 */
export const startBenchCluster = async (url: string, count: number, options: { readonly cluster?: boolean } = {}): Promise<BenchCluster> => {
  const schema = await createSchema(url)
  const databaseUrl = new URL(url)
  databaseUrl.searchParams.set("options", `-c search_path=${schema}`)
  const root = mkdtempSync(join(tmpdir(), "svc-bench-cluster-"))
  const removeRoot = onExit(() => rmSync(root, { recursive: true, force: true }))
  const keyPath = join(root, "secrets.master.key")
  writeFileSync(keyPath, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 })
  const instances: Array<ServerProcess> = []
  const start = async (index: number) => {
    const name = `gateway-${String.fromCharCode(65 + index)}`
    const home = join(root, name)
    mkdirSync(home, { mode: 0o700 })
    writeFileSync(join(home, "policy.yml"), POLICY_YML)
    const [port, runnerPort] = [await freePort(), await freePort()]
    instances[index] = await startServer({
      name,
      script: MAIN,
      args: ["serve"],
      port,
      readyTimeoutMs: 60_000,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        SVC_HOME: home,
        SVC_PORT: String(port),
        SVC_DATABASE_URL: databaseUrl.toString(),
        ...(options.cluster === false ? {} : { SVC_CLUSTER: "1", SVC_CLUSTER_SECRET: CLUSTER_SECRET }),
        SVC_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
        SVC_SECRETS_MASTER_KEY_PATH: keyPath,
        SVC_RUNNER_HOST: "127.0.0.1",
        SVC_RUNNER_PORT: String(runnerPort),
        SVC_ENGINE_API_ENABLED: "1",
        SVC_MODELS_DEV_DISABLE_FETCH: "1",
        SVC_AUTH_RATE_LIMIT_MAX: "1000000",
        SVC_LOG_LEVEL: "Warn"
      }
    })
  }
  const close = async () => {
    await Promise.all(instances.map((instance) => instance.stop()))
    await dropSchema(url, schema)
    removeRoot()
  }
  try {
    await start(0)
    await Promise.all(Array.from({ length: count - 1 }, (_, i) => start(i + 1)))
  } catch (error) {
    await close()
    throw error
  }
  return { instances, close }
}

/**
 * CPU seconds used so far by every process named `postgres` on this machine
 * (`/proc/<pid>/stat`); `undefined` when there is none (a server elsewhere).
 */
export const postgresCpuSeconds = (): number | undefined => {
  let total: number | undefined
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    let comm = ""
    try {
      comm = readFileSync(`/proc/${entry}/comm`, "utf8").trim()
    } catch {
      continue
    }
    if (comm !== "postgres") continue
    const seconds = processCpuSeconds(Number(entry))
    if (seconds !== undefined) total = (total ?? 0) + seconds
  }
  return total
}
