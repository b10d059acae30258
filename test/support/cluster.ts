/**
 * Several real gateway processes (`node dist/cli/main.mjs serve`) forming one
 * cluster on one fresh PostgreSQL schema (issue 27 §4; docs/scaling.md "What
 * every instance needs"): `SVC_CLUSTER=1`, one `SVC_DATABASE_URL` (the schema
 * selected through the URL's `options=-c search_path=<schema>`), the same
 * `SVC_CLUSTER_SECRET`, `SVC_ADMIN_TOKEN` and master key file
 * (`SVC_SECRETS_MASTER_KEY_PATH`), and per instance its own `SVC_HOME`, a free
 * HTTP port (`--port 0`) and a free `SVC_RUNNER_PORT`. The bundle must be
 * built first (`node scripts/bundle.mjs`; `npm test` does it).
 *
 * ```ts
 * const cluster = await startCluster({ instances: 3 })
 * const [a, b, c] = cluster.instances
 * const operator = await connectOperator(a)
 * const node = await connectReadyNode(c, ["steps.echo"]) // paired on C, ready for task.execute
 * await b.kill() // SIGKILL
 * await cluster.close() // stops the rest (SIGTERM) and drops the schema
 * ```
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../../bench/processes.ts"
import { run as runCli, type Run } from "./cli.ts"
import { sharedPostgresSchema } from "./databases.ts"
import type { GatewayEndpoint } from "./gateway.ts"
import { connectNode, type TestNode } from "./nodePeer.ts"
import { connectPeer, type TestPeer } from "./wsPeer.ts"

/** The admin token every instance of a test cluster shares (64 hex characters). */
export const CLUSTER_ADMIN_TOKEN = "c".repeat(32) + "d".repeat(32)
/** The cluster secret every instance shares (≥ 32 characters). */
export const CLUSTER_SECRET = "cluster-process-test-secret-0123456789abcdef"

/** A JSON answer: status and parsed body (the text when it is not JSON). */
export interface JsonAnswer {
  readonly status: number
  readonly body: any
}

/** One running gateway process of a cluster; usable wherever a {@link GatewayEndpoint} is. */
export interface ClusterInstance extends GatewayEndpoint {
  /** `A`, `B`, `C`, … in start order. */
  readonly name: string
  readonly process: Run
  /** The runner port it was given (`SVC_RUNNER_PORT`). */
  readonly runnerPort: number
  /** Its stdout and stderr so far, for failure messages. */
  readonly output: () => string
  /** Authenticated JSON request with the admin token. */
  readonly call: (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, body?: unknown) => Promise<JsonAnswer>
  /** SIGTERM, then waits for the exit (SIGKILL after 20 s); the exit code. */
  readonly stop: () => Promise<number | null>
  /** SIGKILL (`kill -9`), then waits for the exit. */
  readonly kill: () => Promise<void>
}

/** A cluster of gateway processes on one PostgreSQL schema. */
export interface Cluster {
  /** The instances started so far (also the stopped ones), in start order. */
  readonly instances: ReadonlyArray<ClusterInstance>
  /** `SVC_DATABASE_URL` of every instance (the schema in `options`). */
  readonly databaseUrl: string
  /** The schema's name. */
  readonly schema: string
  /** Starts one more instance of the cluster, with `env` on top of the shared environment. */
  readonly add: (env?: Record<string, string>) => Promise<ClusterInstance>
  /** Stops every running instance (SIGTERM), drops the schema and removes the state directories. */
  readonly close: () => Promise<void>
}

/** Options of {@link startCluster}. */
export interface ClusterOptions {
  /** How many instances to start (they start one after another, the first alone: it records the master key id). */
  readonly instances: number
  /** The PostgreSQL server (without a schema); the schema is created fresh. */
  readonly postgresUrl: string
  /** Environment for every instance, on top of the defaults (e.g. `SVC_AUTH_RATE_LIMIT_MAX`). */
  readonly env?: Record<string, string>
  /** Written to each instance's `$SVC_HOME/policy.yml` when given. */
  readonly policy?: string
  /** How long one instance may take to print its start log (ms, default 60 000). */
  readonly startTimeoutMs?: number
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

const exitedAlready = (r: Run) => r.child.exitCode !== null || r.child.signalCode !== null

/** Starts a cluster of `options.instances` gateway processes on a fresh schema of `options.postgresUrl`. */
export const startCluster = async (options: ClusterOptions): Promise<Cluster> => {
  const shared = await sharedPostgresSchema(options.postgresUrl)
  const withSchema = new URL(options.postgresUrl)
  withSchema.searchParams.set("options", `-c search_path=${shared.schema}`)
  const databaseUrl = withSchema.toString()
  const root = mkdtempSync(join(tmpdir(), "svc-cluster-procs-"))
  const keyPath = join(root, "secrets.master.key")
  writeFileSync(keyPath, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 })
  const instances: Array<ClusterInstance> = []
  let started = 0

  const add = async (env: Record<string, string> = {}): Promise<ClusterInstance> => {
    const index = started++
    const name = String.fromCharCode(65 + index)
    const home = join(root, name)
    mkdirSync(home, { mode: 0o700 })
    if (options.policy !== undefined) writeFileSync(join(home, "policy.yml"), options.policy)
    const runnerPort = await freePort()
    const proc = runCli(["serve", "--port", "0"], {
      SVC_HOME: home,
      SVC_DATABASE_URL: databaseUrl,
      SVC_CLUSTER: "1",
      SVC_CLUSTER_SECRET: CLUSTER_SECRET,
      SVC_ADMIN_TOKEN: CLUSTER_ADMIN_TOKEN,
      SVC_SECRETS_MASTER_KEY_PATH: keyPath,
      SVC_RUNNER_HOST: "127.0.0.1",
      SVC_RUNNER_PORT: String(runnerPort),
      SVC_ENGINE_API_ENABLED: "1",
      SVC_MODELS_DEV_DISABLE_FETCH: "1",
      SVC_AUTH_RATE_LIMIT_MAX: "100000",
      SVC_EXEC_CONCURRENCY: "16",
      ...options.env,
      ...env
    })
    const output = () => `--- ${name} stdout ---\n${proc.stdout}\n--- ${name} stderr ---\n${proc.stderr}`
    const kill = async () => {
      if (!exitedAlready(proc)) proc.child.kill("SIGKILL")
      await proc.exited
    }
    const stop = async () => {
      if (exitedAlready(proc)) return proc.child.exitCode
      proc.child.kill("SIGTERM")
      const timer = setTimeout(() => proc.child.kill("SIGKILL"), 20_000)
      const code = await proc.exited
      clearTimeout(timer)
      return code
    }
    const deadline = Date.now() + (options.startTimeoutMs ?? 60_000)
    let url: string | undefined
    while (url === undefined && Date.now() < deadline && !exitedAlready(proc)) {
      const line = proc.stdout.split("\n").find((l) => l.includes("svc-gateway listening"))
      if (line !== undefined) url = JSON.parse(line).annotations.url as string
      else await new Promise((resolve) => setTimeout(resolve, 50))
    }
    if (url === undefined) {
      await kill()
      throw new Error(`gateway ${name} did not start:\n${output()}`)
    }
    const base = url
    const fetchFrom = (path: string, init?: RequestInit) => fetch(base + path, init)
    const call = async (method: string, path: string, body?: unknown): Promise<JsonAnswer> => {
      const res = await fetchFrom(path, {
        method,
        headers: {
          authorization: `Bearer ${CLUSTER_ADMIN_TOKEN}`,
          ...(body === undefined ? {} : { "content-type": "application/json" })
        },
        body: body === undefined ? undefined : JSON.stringify(body)
      })
      return { status: res.status, body: parse(await res.text()) }
    }
    const instance: ClusterInstance = {
      name,
      url: base,
      adminToken: CLUSTER_ADMIN_TOKEN,
      fetch: fetchFrom,
      process: proc,
      runnerPort,
      output,
      call,
      stop,
      kill
    }
    instances[index] = instance
    return instance
  }

  try {
    await add()
    await Promise.all(Array.from({ length: options.instances - 1 }, () => add()))
  } catch (error) {
    await Promise.all(instances.map((i) => i.kill()))
    await shared.drop()
    rmSync(root, { recursive: true, force: true })
    throw error
  }

  return {
    instances,
    databaseUrl,
    schema: shared.schema,
    add,
    close: async () => {
      await Promise.all(instances.map((i) => i.stop()))
      await shared.drop()
      rmSync(root, { recursive: true, force: true })
    }
  }
}

/** An operator client (admin token, role `client`, device-proof handshake done) connected to `instance`. */
export const connectOperator = async (instance: ClusterInstance): Promise<TestPeer> =>
  (await connectPeer(instance.url, instance.adminToken)).peer

/**
 * A node connected to `instance` (device-proof handshake as role `node`), its pairing approved there with
 * `capabilities` allowed, and those capabilities declared ready: it can receive `task.execute` for them.
 */
export const connectReadyNode = (instance: ClusterInstance, capabilities: ReadonlyArray<string>): Promise<TestNode> =>
  connectNode(instance, {
    advertised: capabilities.map((id) => ({ id })),
    allowlist: capabilities.map((id) => ({ id })),
    ready: capabilities
  })

/** The output of every instance, for an assertion's message. */
export const clusterOutput = (cluster: Cluster): string => cluster.instances.map((i) => i.output()).join("\n")

/** The socket inodes of local TCP ports on this machine (Linux `/proc/net/tcp`, `/proc/net/tcp6`). */
const socketInodes = (localPort: number): Set<string> => {
  const inodes = new Set<string>()
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = ""
    try {
      text = readFileSync(table, "utf8")
    } catch {
      continue
    }
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/)
      if (fields.length < 10) continue
      if (parseInt(fields[1].split(":").at(-1)!, 16) === localPort) inodes.add(fields[9])
    }
  }
  return inodes
}

/**
 * The running instance whose process owns the TCP connection with local port `clientPort` (as a server sees it in
 * `req.socket.remotePort`): which gateway sent a request, for tests that must kill the instance running a step.
 * Linux only (reads `/proc`); undefined when no instance owns it.
 */
export const instanceOwningPort = (cluster: Cluster, clientPort: number): ClusterInstance | undefined => {
  const inodes = socketInodes(clientPort)
  return cluster.instances.find((instance) => {
    const pid = instance.process.child.pid
    if (pid === undefined || instance.process.child.exitCode !== null || instance.process.child.signalCode !== null) return false
    let fds: Array<string> = []
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      return false
    }
    return fds.some((fd) => {
      try {
        const target = readlinkSync(`/proc/${pid}/fd/${fd}`)
        return target.startsWith("socket:[") && inodes.has(target.slice(8, -1))
      } catch {
        return false
      }
    })
  })
}
