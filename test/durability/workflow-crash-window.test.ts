/**
 * The crash window of a finished attempt (issue 20 point 1), on SQLite and
 * (with SVC_TEST_DATABASE_URL) PostgreSQL: the gateway runs as a child
 * process; each cycle starts one-step runs (a GET, a POST with an
 * idempotency key, a POST without one) whose target holds the requests
 * until all have arrived, answers them together and then has the gateway
 * killed with SIGKILL 0–40 ms later (spread evenly over the cycles). That
 * kill lands before, inside and after the window in which the attempt's
 * record says `succeeded` while the engine has not yet stored the activity's
 * result. A new gateway on the same database finishes the runs; the target's
 * counts and the attempt records must show that no step was executed again
 * once an attempt of it had succeeded: the kill may cost an attempt (it is
 * then recorded `interrupted`), never a second request after a success.
 *
 * `SVC_CRASH_WINDOW_KILLS` sets the number of kills per database (default 10).
 */
import { afterEach, describe, expect, it } from "vitest"
import { eventually } from "../support/eventually.ts"
import { type CountingServer, startCountingServer } from "./countingServer.ts"
import { call, durableBackends, type DurableHome, type GatewayProcess, startGatewayProcess } from "./gatewayProcess.ts"

const KILLS = Number(process.env.SVC_CRASH_WINDOW_KILLS ?? 10)
const MAX_DELAY_MS = 40
const DEADLINE_MS = 60_000

/** The kinds of step each cycle runs, one run each. */
const KINDS = ["get", "keyed", "unkeyed"] as const
type Kind = typeof KINDS[number]

const stepOf = (kind: Kind, url: string, cycle: number) =>
  kind === "get"
    ? { type: "Http", args: { method: "GET", url } }
    : kind === "keyed"
    ? { type: "Http", args: { method: "POST", url, body: { cycle } }, idempotency_key: `crash-${cycle}` }
    : { type: "Http", args: { method: "POST", url, body: { cycle } } }

interface CycleRun {
  readonly kind: Kind
  readonly run_id: string
  readonly path: string
  readonly server: CountingServer
  readonly delay: number
}

for (const backend of durableBackends) {
  describe(`a finished attempt is never executed again after a kill -9 (${backend.name})`, () => {
    let home: DurableHome | undefined
    const servers: Array<CountingServer> = []
    const gateways: Array<GatewayProcess> = []

    afterEach(async () => {
      for (const gw of gateways.splice(0)) await gw.kill()
      for (const server of servers.splice(0)) await server.close()
      await home?.drop()
      home = undefined
    })

    it(`${KILLS} kills 0–${MAX_DELAY_MS} ms after the target answered: zero re-executions of a succeeded step`, async () => {
      home = await backend.make()
      let gateway = await startGatewayProcess(home)
      gateways.push(gateway)
      const violations: Array<string> = []
      const outcomes: Record<string, number> = {}

      const detailOf = async (gw: GatewayProcess, run_id: string) => (await call(gw, "GET", `/workflow/runs/${run_id}`)).body

      /** Checks the runs of a cycle once the gateway after its kill has finished (or paused) them. */
      const check = async (gw: GatewayProcess, runs: ReadonlyArray<CycleRun>) => {
        for (const run of runs) {
          let detail: any
          await eventually(async () => {
            detail = await detailOf(gw, run.run_id)
            const status = detail.run?.status
            return status === "succeeded" || (run.kind === "unkeyed" && status === "paused")
          }, `run ${run.run_id} (${run.kind}) to succeed or pause after the restart`, DEADLINE_MS).catch((error) => {
            throw new Error(`${(error as Error).message}\n${JSON.stringify(detail, null, 1)}\n${gw.output()}`)
          })
          const attempts: Array<{ status: string; error: { code: string } | null }> = detail.steps[0].attempts
          const statuses = attempts.map((a) => (a.error?.code === "interrupted" ? "interrupted" : a.status))
          const requests = run.server.requested(run.path)
          const firstSuccess = statuses.indexOf("succeeded")
          const label = `${run.kind} run ${run.run_id}, kill ${run.delay} ms after the answer: attempts [${statuses}], ` +
            `${requests} requests, run ${detail.run.status}`
          outcomes[`${run.kind}: [${statuses}] ${detail.run.status}`] = (outcomes[`${run.kind}: [${statuses}] ${detail.run.status}`] ?? 0) + 1
          // Every attempt sent its request once (the first one before the kill): a request more is a re-execution.
          if (requests !== attempts.length) violations.push(`${label}: requests ≠ attempts`)
          if (firstSuccess !== -1 && firstSuccess !== attempts.length - 1) violations.push(`${label}: attempts after a success`)
          if (detail.run.status === "paused" && firstSuccess !== -1) violations.push(`${label}: paused although it succeeded`)
          if (detail.run.status === "paused" && detail.run.paused_reason !== "retry") violations.push(`${label}: paused for ${detail.run.paused_reason}`)
        }
      }

      for (let cycle = 0; cycle < KILLS; cycle++) {
        const delay = KILLS === 1 ? 0 : Math.round((cycle * MAX_DELAY_MS) / (KILLS - 1))
        const server = await startCountingServer()
        servers.push(server)
        const gw = gateway
        const runs: Array<CycleRun> = []
        for (const kind of KINDS) {
          const path = `/block/${cycle}/${kind}`
          const started = await call(gw, "POST", "/workflow/run", {
            key: `agent:crash-${cycle}-${kind}:main`,
            steps: [stepOf(kind, server.url + path, cycle)]
          })
          expect(started.status).toBe(200)
          runs.push({ kind, run_id: started.body.run_id, path, server, delay })
        }
        // Every run's request is at the target: answer them together, then kill the gateway `delay` ms later.
        await eventually(() => runs.every((r) => server.requested(r.path) === 1), "every run's request to arrive", DEADLINE_MS)
        const killed = new Promise<void>((resolve) => {
          let armed = true
          server.onAnswered(() => {
            if (!armed) return
            armed = false
            setTimeout(() => {
              gw.process.child.kill("SIGKILL")
              resolve()
            }, delay)
          })
        })
        server.release()
        await killed
        await gw.kill()
        expect(gw.process.child.signalCode).toBe("SIGKILL")

        gateway = await startGatewayProcess(home)
        gateways.push(gateway)
        await check(gateway, runs)
      }

      // What the kills hit (for the log): `interrupted` = killed before the attempt's end was recorded.
      console.log(`crash window (${backend.name}):`, JSON.stringify(outcomes, null, 1))
      expect(violations).toEqual([])
    }, 240_000)
  })
}
