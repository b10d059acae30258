/**
 * The crash window of a finished attempt (issue 20 point 1), on SQLite and
 * (with SVC_TEST_DATABASE_URL) PostgreSQL. The gateway runs as a child
 * process. Each cycle starts three one-step runs (a GET, a POST with an
 * idempotency key, a POST without one) whose target holds the requests until
 * all three have arrived, answers them together and has the gateway killed
 * with SIGKILL `delay` ms later, the delays spread evenly over 0–40 ms across
 * the cycles: the kill lands before, inside and after the window in which an
 * attempt's record says `succeeded` while the engine has not yet stored the
 * activity's result. A new gateway on the same database finishes the runs;
 * the target's counts and the attempt records must show that no step was
 * executed again once an attempt of it had succeeded. A kill may cost an
 * attempt (recorded `interrupted`: a GET or keyed POST is retried, an unkeyed
 * POST pauses for a retry approval), never a request after a success. The
 * log shows what each kill hit, with the delays measured from each answer.
 *
 * `SVC_CRASH_WINDOW_KILLS` sets the kills per database (default 8).
 */
import { afterEach, describe, expect, it } from "vitest"
import { eventually } from "../support/eventually.ts"
import { type CountingServer, startCountingServer } from "./countingServer.ts"
import { call, durableBackends, type DurableHome, type GatewayProcess, startGatewayProcess } from "./gatewayProcess.ts"

const KILLS = Number(process.env.SVC_CRASH_WINDOW_KILLS ?? 8)
/** The kill comes this long after a cycle's answers: 0 ms for the first cycle, up to this for the last. */
const MAX_DELAY_MS = 40
const DEADLINE_MS = 60_000

/** The kinds of step a cycle runs. */
const KINDS = ["get", "keyed", "unkeyed"] as const
type Kind = typeof KINDS[number]

const stepOf = (kind: Kind, url: string, id: string) =>
  kind === "get"
    ? { type: "Http", args: { method: "GET", url } }
    : kind === "keyed"
    ? { type: "Http", args: { method: "POST", url, body: { id } }, idempotency_key: `crash-${id}` }
    : { type: "Http", args: { method: "POST", url, body: { id } } }

interface CycleRun {
  readonly kind: Kind
  readonly run_id: string
  readonly path: string
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
      /** Outcome → the kill delays (ms after the run's answer) that gave it, for the log. */
      const outcomes: Record<string, Array<number>> = {}

      /** Checks a cycle's runs once the gateway after its kill has finished (or paused) them. */
      const check = async (gw: GatewayProcess, server: CountingServer, run: CycleRun, delay: number) => {
        let detail: any
        await eventually(async () => {
          detail = (await call(gw, "GET", `/workflow/runs/${run.run_id}`)).body
          const status = detail.run?.status
          return status === "succeeded" || (run.kind === "unkeyed" && status === "paused")
        }, `run ${run.run_id} (${run.kind}) to succeed or pause after the restart`, DEADLINE_MS).catch((error) => {
          throw new Error(`${(error as Error).message}\n${JSON.stringify(detail, null, 1)}\n${gw.output()}`)
        })
        const attempts: Array<{ status: string; error: { code: string } | null }> = detail.steps[0].attempts
        const statuses = attempts.map((a) => (a.error?.code === "interrupted" ? "interrupted" : a.status))
        const requests = server.requested(run.path)
        const firstSuccess = statuses.indexOf("succeeded")
        const outcome = `${run.kind}: [${statuses}] → ${detail.run.status}`
        ;(outcomes[outcome] ??= []).push(delay)
        const label = `${run.kind} run ${run.run_id}, killed ${delay} ms after its answer: attempts [${statuses}], ` +
          `${requests} requests, run ${detail.run.status}`
        // Every attempt sent its request once (the first one before the kill): one request more is a re-execution.
        if (requests !== attempts.length) violations.push(`${label}: requests ≠ attempts`)
        if (firstSuccess !== -1 && firstSuccess !== attempts.length - 1) violations.push(`${label}: attempts after a success`)
        if (detail.run.status === "paused" && firstSuccess !== -1) violations.push(`${label}: paused although it succeeded`)
        if (detail.run.status === "paused" && detail.run.paused_reason !== "retry") {
          violations.push(`${label}: paused for ${detail.run.paused_reason}`)
        }
      }

      for (let cycle = 0; cycle < KILLS; cycle++) {
        const delay = KILLS === 1 ? 0 : Math.round((cycle * MAX_DELAY_MS) / (KILLS - 1))
        const server = await startCountingServer()
        servers.push(server)
        const gw = gateway
        const runs: Array<CycleRun> = []
        for (const kind of KINDS) {
          const id = `${cycle}-${kind}`
          const path = `/block/${id}`
          const started = await call(gw, "POST", "/workflow/run", { key: `agent:crash-${id}:main`, steps: [stepOf(kind, server.url + path, id)] })
          expect(started.status).toBe(200)
          runs.push({ kind, run_id: started.body.run_id, path })
        }
        // Every run's request is at the target: answer them together, kill the gateway `delay` ms after the first answer.
        await eventually(() => runs.every((r) => server.requested(r.path) === 1), "every run's request to arrive", DEADLINE_MS)
        const answeredAt = new Map<string, number>()
        let killedAt = 0
        const killed = new Promise<void>((resolve) => {
          server.onAnswered((path) => {
            // The first answer only (the retries after the restart are answered too).
            if (answeredAt.has(path)) return
            answeredAt.set(path, performance.now())
            if (answeredAt.size !== 1) return
            setTimeout(() => {
              killedAt = performance.now()
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
        for (const run of runs) await check(gateway, server, run, Math.round(killedAt - answeredAt.get(run.path)!))
      }

      // What the kills hit, with the delays (ms after the answer) of each: `interrupted` = killed before the end was recorded.
      console.log(`crash window (${backend.name}):\n${Object.entries(outcomes).map(([o, d]) => `  ${o}: ${d.length} (${d.sort((a, b) => a - b).join(", ")} ms)`).join("\n")}`)
      expect(violations).toEqual([])
    }, 240_000)
  })
}
