/**
 * Workflow runs across the instances of a cluster (issue 27 §1 and §4), three gateway processes on one fresh
 * PostgreSQL schema (test/support/cluster.ts):
 * - runs started on each instance, one after another for several seconds, all finish (the instances' engines do not
 *   take each other's shards away);
 * - a workflow run survives `kill -9` of the gateway process running it and finishes on another instance:
 * runs of three Http steps against a local counting server are started on A, their middle step (a GET) hangs; the
 * instance that sent a held request (found through the request's TCP connection, whichever runner got the run) is
 * killed with SIGKILL. The two others finish every run without calling a step that had succeeded again; a run paused
 * at a Confirm step stays paused and resumes by its token on a surviving instance.
 *
 * The runs execute on the runner holding their shard (docs/scaling.md "Runners"), whichever instance started them.
 * Needs SVC_TEST_DATABASE_URL and the bundle (`node scripts/bundle.mjs`).
 */
import { afterEach, describe, expect, it } from "vitest"
import { type CountingServer, startCountingServer } from "../durability/countingServer.ts"
import {
  type Cluster,
  type ClusterInstance,
  clusterOutput,
  connectOperator,
  instanceOwningPort,
  startCluster
} from "../support/cluster.ts"
import { postgresUrl } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import type { TestPeer } from "../support/wsPeer.ts"

/** Lets Http steps to 127.0.0.1 run without a policy pause. */
const POLICY = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
`
const RUNS = 6
/** Generous: a dead runner's shards move once its locks expire (about 10-15 s), on two shared cores. */
const DEADLINE_MS = 120_000

const get = (url: string) => ({ type: "Http", args: { method: "GET", url }, timeout_ms: 180_000 })

describe.skipIf(postgresUrl === undefined)("workflow runs on a cluster of three gateway processes", () => {
  let cluster: Cluster | undefined
  let server: CountingServer | undefined
  let peer: TestPeer | undefined
  afterEach(async () => {
    peer?.ws.close()
    await cluster?.close()
    await server?.close()
    peer = cluster = server = undefined
  }, 60_000)

  /** `eventually` with the counts and the instances' output in the failure message. */
  const waitFor = async (check: () => boolean | Promise<boolean>, what: string, timeoutMs = DEADLINE_MS) => {
    try {
      await eventually(check, what, timeoutMs)
    } catch (error) {
      throw new Error(`${(error as Error).message}\ncounts: ${JSON.stringify(server?.summary())}\n${cluster ? clusterOutput(cluster) : ""}`)
    }
  }

  it("runs started on each instance, for several seconds, all finish", async () => {
    server = await startCountingServer()
    const srv = server
    cluster = await startCluster({ instances: 3, postgresUrl: postgresUrl!, policy: POLICY })
    const instances = cluster.instances
    // Two workers per instance, each starting its next run once its previous one finished, for 8 rounds.
    const finished: Array<string> = []
    await Promise.all(Array.from({ length: 6 }, async (_, worker) => {
      const on = instances[worker % 3]
      for (let round = 0; round < 8; round++) {
        const started = await on.call("POST", "/workflow/run", { key: `agent:spread-${worker}:main`, steps: [get(`${srv.url}/w/${worker}/${round}`)] })
        expect(started.status, JSON.stringify(started.body)).toBe(200)
        const runId: string = started.body.run_id
        await waitFor(async () => (await on.call("GET", `/workflow/runs/${runId}`)).body.run?.status === "succeeded", `run ${runId} started on ${on.name} to succeed`, 30_000)
        finished.push(on.name)
      }
    }))
    expect(finished).toHaveLength(48)
    for (const name of ["A", "B", "C"]) expect(finished.filter((n) => n === name)).toHaveLength(16)
  }, 240_000)

  it("kill -9 of the instance running runs: they finish on the other instances, no succeeded step runs again, a paused run resumes by token", async () => {
    server = await startCountingServer()
    const srv = server
    cluster = await startCluster({ instances: 3, postgresUrl: postgresUrl!, policy: POLICY })
    const [a] = cluster.instances
    peer = await connectOperator(a)

    // A run paused at its Confirm step, with its resume token.
    const pausedEvent = peer.next((m) => m.type === "run.paused", DEADLINE_MS)
    const pausedStart = await a.call("POST", "/workflow/run", {
      key: "agent:failover-paused:main",
      steps: [get(`${srv.url}/p0`), { type: "Confirm", args: {} }, get(`${srv.url}/p2`)]
    })
    expect(pausedStart.status, JSON.stringify(pausedStart.body)).toBe(200)
    const pausedRun: string = pausedStart.body.run_id
    const token: string = (await pausedEvent).payload.resume_token
    expect(typeof token).toBe("string")

    // Runs whose middle step hangs (distinct keys: spread over the shards).
    const runs: Array<string> = []
    for (let i = 0; i < RUNS; i++) {
      const started = await a.call("POST", "/workflow/run", {
        key: `agent:failover-${i}:main`,
        steps: [get(`${srv.url}/a/${i}`), get(`${srv.url}/block/${i}`), get(`${srv.url}/c/${i}`)]
      })
      expect(started.status, JSON.stringify(started.body)).toBe(200)
      runs.push(started.body.run_id)
    }
    await waitFor(() => runs.every((_, i) => srv.requested(`/block/${i}`) === 1), "every run's step 1 to be requested")

    // The victim: the process that sent a held request (it is running that run).
    const held = srv.heldFrom()
    const owners = held.map((h) => ({ ...h, instance: instanceOwningPort(cluster!, h.clientPort) }))
    const victim: ClusterInstance | undefined = owners[0]?.instance
    expect(victim, JSON.stringify(owners.map((o) => [o.path, o.instance?.name]))).toBeDefined()
    const survivors = cluster.instances.filter((i) => i !== victim)
    await victim!.kill()
    expect(victim!.process.child.signalCode).toBe("SIGKILL")
    const victimPaths = owners.filter((o) => o.instance === victim).map((o) => o.path)
    await waitFor(() => !srv.heldFrom().some((h) => victimPaths.includes(h.path)), "the killed instance's connections to close")
    srv.release()

    const status = async (on: ClusterInstance, id: string) => (await on.call("GET", `/workflow/runs/${id}`)).body.run?.status
    await waitFor(
      async () => (await Promise.all(runs.map((id) => status(survivors[0], id)))).every((s) => s === "succeeded"),
      `every run to succeed after ${victim!.name} was killed`
    )
    for (const [i, id] of runs.entries()) {
      const detail = (await survivors[1].call("GET", `/workflow/runs/${id}`)).body
      expect(detail.steps.map((s: any) => s.status), JSON.stringify(detail)).toEqual(["succeeded", "succeeded", "succeeded"])
      expect([detail.steps[0].attempts.length, detail.steps[2].attempts.length]).toEqual([1, 1])
      // The attempt in flight in the killed process is recorded as interrupted; a GET gets a new attempt on the new runner.
      const attempts = detail.steps[1].attempts.map((a: any) => [a.attempt, a.status, a.error?.code ?? null])
      if (victimPaths.includes(`/block/${i}`)) expect(attempts).toEqual([[1, "failed", "interrupted"], [2, "succeeded", null]])
      else expect(attempts).toEqual([[1, "succeeded", null]])
      // No succeeded step ran again; the GET in flight at the kill succeeded exactly once.
      expect(srv.requested(`/a/${i}`)).toBe(1)
      expect(srv.requested(`/c/${i}`)).toBe(1)
      expect(srv.answered(`/block/${i}`)).toBe(1)
    }

    // The paused run is still paused on every survivor and resumes once, by token, on the last one.
    for (const on of survivors) expect(await status(on, pausedRun)).toBe("paused")
    const resumer = survivors[survivors.length - 1]
    expect(await resumer.call("POST", "/workflow/resume", { token })).toEqual({ status: 200, body: { status: "ok", run_id: pausedRun } })
    await waitFor(async () => (await status(survivors[0], pausedRun)) === "succeeded", "the resumed run to succeed")
    expect(srv.requested("/p0")).toBe(1)
    expect(srv.requested("/p2")).toBe(1)
    expect((await survivors[0].call("POST", "/workflow/resume", { token })).status).toBe(404)
  }, 240_000)
})
