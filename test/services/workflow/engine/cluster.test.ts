/**
 * The workflow engine on the cluster's runners (issue 27 §1), with real
 * processes on one fresh PostgreSQL schema: three full runners (A, B, C)
 * with their authenticated HttpRunner listeners on free ports, and an edge
 * (client-only) process. In order, on the same processes:
 *
 * 1. the runner port answers 401 without the cluster secret or with a wrong
 *    one, and serves a request that carries it;
 * 2. the cluster job `test.singleton` runs on exactly one runner at a time;
 * 3. a run started on the edge process is executed by the runners;
 * 4. `kill -9` of the process executing a run with slow steps: the run goes
 *    on on another runner, no succeeded step runs again, and the run
 *    suspended at its Confirm step resumes by token from another process.
 *
 * Skipped without SVC_TEST_DATABASE_URL.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes, randomUUID } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleFixture } from "../../../support/bundleFixture.ts"
import { freePort } from "../../../support/docShell.ts"
import { eventually } from "../../../support/eventually.ts"
import { postgresUrl } from "../../../support/databases.ts"
import { postgresSchemaDatabase } from "./support.ts"

let bundle = ""
const secret = randomBytes(24).toString("hex")

interface Runner {
  readonly name: string
  readonly port: number
  readonly process: ChildProcess
  output: string
  readonly exit: Promise<number | null>
}

describe.skipIf(postgresUrl === undefined)("workflow runs on the cluster's runners (PostgreSQL)", () => {
  let work: string
  let drop: () => Promise<void> = async () => {}
  const runners: Array<Runner> = []
  let baseEnv: Record<string, string>

  const startRunner = async (name: string, role: string): Promise<Runner> => {
    const port = await freePort()
    const child = spawn(process.execPath, [bundle], {
      env: { ...process.env, ...baseEnv, WF_ROLE: role, WF_PORT: String(port) },
      stdio: ["pipe", "pipe", "pipe"]
    })
    const runner: Runner = {
      name,
      port,
      process: child,
      output: "",
      exit: new Promise((resolve) => child.on("exit", (code) => resolve(code)))
    }
    child.stdout!.on("data", (chunk) => (runner.output += String(chunk)))
    child.stderr!.on("data", (chunk) => (runner.output += String(chunk)))
    runners.push(runner)
    return runner
  }
  const alive = (runner: Runner) => runner.process.exitCode === null && runner.process.signalCode === null
  const ready = (runner: Runner) =>
    eventually(() => runner.output.includes("READY") || !alive(runner), `${runner.name} to be ready`, 60_000).then(() =>
      expect(runner.output, runner.output).toContain("READY")
    )
  const send = (runner: Runner, line: string) => runner.process.stdin!.write(`${line}\n`)
  /** The latest engine status of `run_id` as `runner` reports it (asks, then waits for the answer). */
  const statusOf = async (runner: Runner, run_id: string): Promise<string> => {
    const before = runner.output.length
    send(runner, `status ${run_id}`)
    const pattern = new RegExp(`STATUS ${run_id} (\\w+)`)
    let found: string | undefined
    await eventually(() => {
      found = pattern.exec(runner.output.slice(before))?.[1]
      return found !== undefined
    }, `${runner.name} to report the status of ${run_id}`, 30_000)
    return found!
  }
  const awaitStatus = (runner: Runner, run_id: string, status: string, timeoutMs: number) =>
    eventually(async () => (await statusOf(runner, run_id)) === status, `${run_id} to be ${status} on ${runner.name}`, timeoutMs)

  interface Call {
    readonly kind: "start" | "done"
    readonly run_id: string
    readonly step: number
    readonly pid: number
  }
  const calls = (run_id: string): Array<Call> => {
    try {
      return readFileSync(baseEnv["WF_CALLS_FILE"]!, "utf8").split("\n").filter((l) => l !== "").map((l) => {
        const [kind, run, step, pid] = l.split(" ")
        return { kind: kind as Call["kind"], run_id: run!, step: Number(step), pid: Number(pid) }
      }).filter((c) => c.run_id === run_id)
    } catch {
      return []
    }
  }
  const singletonPids = (): Array<number> => {
    try {
      return readFileSync(baseEnv["WF_JOBS_FILE"]!, "utf8").split("\n").filter((l) => l !== "").map(Number)
    } catch {
      return []
    }
  }

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "svc-wf-cluster-"))
    bundle = await bundleFixture("test/services/workflow/engine/fixtures/clusterProcess.ts", "svc-workflow-engine-test")
    const db = await postgresSchemaDatabase(postgresUrl!)
    drop = db.drop
    baseEnv = {
      WF_DB: postgresUrl!,
      WF_DB_SCHEMA: db.schema!,
      WF_SECRET: secret,
      WF_CALLS_FILE: join(work, "calls"),
      WF_JOBS_FILE: join(work, "jobs"),
      WF_STEP_MS: "1500"
    }
    // Started one after the other: the first creates the cluster tables.
    const a = await startRunner("A", "all")
    await ready(a)
    const others = [await startRunner("B", "all"), await startRunner("C", "worker")]
    await Promise.all(others.map(ready))
  }, 150_000)

  afterAll(async () => {
    for (const runner of runners) if (alive(runner)) runner.process.kill("SIGKILL")
    await Promise.all(runners.map((r) => r.exit))
    await drop()
    rmSync(work, { recursive: true, force: true })
    rmSync(bundle, { force: true })
  }, 60_000)

  it("the runner port refuses requests without the cluster secret (401) and serves those with it", async () => {
    const url = `http://127.0.0.1:${runners[0]!.port}/`
    const post = (headers: Record<string, string>) =>
      fetch(url, { method: "POST", headers, body: new Uint8Array(0), signal: AbortSignal.timeout(10_000) })

    const none = await post({})
    expect(none.status).toBe(401)
    expect(await none.json()).toEqual({ error: "unauthorized", message: expect.stringContaining("cluster secret") })
    const wrong = await post({ authorization: `Bearer ${secret.slice(0, -1)}x` })
    expect(wrong.status).toBe(401)
    expect(await wrong.text()).not.toContain(secret)

    // Any path: nothing on the port answers without the secret.
    const elsewhere = await fetch(`${url}anything`, { signal: AbortSignal.timeout(10_000) })
    expect(elsewhere.status).toBe(401)

    // With the secret the request reaches the runner's RPC handler (an empty batch of messages).
    const right = await post({ authorization: `Bearer ${secret}` })
    await right.arrayBuffer()
    expect(right.status).toBe(200)
  }, 30_000)

  it("runs a cluster job on exactly one instance at a time", async () => {
    await eventually(() => singletonPids().length > 0, "the singleton to run", 60_000)
    // Let it run for a while, while the shards settle over the three runners.
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    // It ticks every 100 ms on one runner: the last ~2 s of ticks come from one process…
    await eventually(() => new Set(singletonPids().slice(-20)).size === 1, "the last ticks to come from one runner", 30_000)
    const pids = singletonPids()
    expect(runners.map((r) => r.process.pid)).toContain(pids[pids.length - 1])
    // …and it never ran on two at once: two copies would interleave their ticks; a move (a runner joined) is one switch.
    const switches = pids.filter((pid, i) => i > 0 && pid !== pids[i - 1]).length
    expect(switches).toBeLessThanOrEqual(3)
  }, 90_000)

  it("a run started on an edge (client-only) process is executed by the runners", async () => {
    const edge = await startRunner("edge", "edge")
    await ready(edge)
    const run_id = `run_${randomUUID()}`
    send(edge, `start ${run_id}`)
    await awaitStatus(edge, run_id, "suspended", 60_000)
    const executed = calls(run_id)
    expect(executed.filter((c) => c.kind === "done").map((c) => c.step)).toEqual([0, 1, 2])
    expect(executed.map((c) => c.pid)).not.toContain(edge.process.pid)
    send(edge, `resume ${run_id}`)
    await awaitStatus(edge, run_id, "succeeded", 60_000)
    expect(calls(run_id).every((c) => c.pid !== edge.process.pid)).toBe(true)
  }, 150_000)

  it("a run survives kill -9 of the process executing it, without running a succeeded step again", async () => {
    const [a] = runners
    const run_id = `run_${randomUUID()}`
    send(a!, `start ${run_id}`)
    // Step 0 has succeeded and step 1 is running: kill the process running it.
    await eventually(() => calls(run_id).some((c) => c.kind === "start" && c.step === 1), "step 1 to start", 60_000)
    const executorPid = calls(run_id).find((c) => c.kind === "start" && c.step === 1)!.pid
    const victim = runners.find((r) => r.process.pid === executorPid)!
    expect(victim).toBeDefined()
    victim.process.kill("SIGKILL")
    expect(await victim.exit).toBe(null)
    const survivors = runners.filter((r) => r !== victim && alive(r))

    // The run reaches its Confirm step on another runner (after the dead one's shard locks expire).
    await awaitStatus(survivors[0]!, run_id, "suspended", 90_000)
    // Resumed by token from another surviving process.
    const resumer = survivors[survivors.length - 1]!
    send(resumer, `resume ${run_id}`)
    await awaitStatus(resumer, run_id, "succeeded", 90_000)

    const executed = calls(run_id)
    const done = executed.filter((c) => c.kind === "done")
    // Every step but the Confirm succeeded exactly once.
    expect(done.map((c) => c.step).sort()).toEqual([0, 1, 2, 4])
    // Step 0 succeeded before the kill and never ran again; the steps after it ran on the survivors.
    expect(executed.filter((c) => c.step === 0)).toHaveLength(2)
    expect(done.filter((c) => c.step !== 0).every((c) => c.pid !== executorPid)).toBe(true)
  }, 240_000)
})
