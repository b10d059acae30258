/**
 * Durability of workflow runs across a real crash (issue 12 §3), on SQLite
 * and (with SVC_TEST_DATABASE_URL) PostgreSQL: the gateway runs as a child
 * process (`node dist/cli/main.mjs serve`); runs of three Http steps against
 * a local counting server are started, their middle step (a GET) hangs, and
 * the gateway is killed with SIGKILL. A second gateway on the same database
 * finishes every accepted run without calling a step that had succeeded
 * again (the in-flight GET is retried: its first request died with the
 * process; the interrupted attempt of such an idempotent step does not use
 * up its `max_attempts`, so a GET allowed one attempt still succeeds). A run
 * paused at a Confirm step stays paused across the crash and resumes once
 * with the token of its `run.paused` event.
 */
import { afterEach, describe, expect, it } from "vitest"
import { eventually } from "../support/eventually.ts"
import { connectPeer, type TestPeer } from "../support/wsPeer.ts"
import { type CountingServer, startCountingServer } from "./countingServer.ts"
import {
  ADMIN_TOKEN,
  call,
  durableBackends,
  type DurableHome,
  type GatewayProcess,
  startGatewayProcess
} from "./gatewayProcess.ts"

const RUNS = 5
const DEADLINE_MS = 60_000

const get = (url: string) => ({ type: "Http", args: { method: "GET", url }, timeout_ms: 120_000 })

for (const backend of durableBackends) {
  describe(`workflow runs survive kill -9 of the gateway (${backend.name})`, () => {
    let home: DurableHome | undefined
    let server: CountingServer | undefined
    let peer: TestPeer | undefined
    const gateways: Array<GatewayProcess> = []

    afterEach(async () => {
      peer?.ws.close()
      for (const gw of gateways.splice(0)) await gw.kill()
      await server?.close()
      await home?.drop()
      peer = server = home = undefined
    })

    /** Fails with the counts, the gateways' output and `detail` when `check` does not hold in time. */
    const waitFor = async (check: () => boolean | Promise<boolean>, what: string, detail: () => Promise<unknown> = async () => "") => {
      try {
        await eventually(check, what, DEADLINE_MS)
      } catch (error) {
        const logs = gateways.map((gw, i) => `=== gateway ${i} ===\n${gw.output()}`).join("\n")
        throw new Error(
          `${(error as Error).message}\ncounts: ${JSON.stringify(server?.summary())}\n` +
            `runs: ${JSON.stringify(await detail(), null, 1)}\n${logs}`
        )
      }
    }

    it("finishes every accepted run, runs no succeeded step twice, keeps a paused run paused", async () => {
      home = await backend.make()
      server = await startCountingServer()
      const srv = server
      const first = await startGatewayProcess(home)
      gateways.push(first)
      peer = (await connectPeer(first.url, ADMIN_TOKEN)).peer

      // A run paused at its Confirm step, with its resume token.
      const paused = peer.next((m) => m.type === "run.paused", DEADLINE_MS)
      const pausedStart = await call(first, "POST", "/workflow/run", {
        key: "agent:dp:main",
        steps: [get(`${srv.url}/p0`), { type: "Confirm", args: {} }, get(`${srv.url}/p2`)]
      })
      expect(pausedStart.status).toBe(200)
      const pausedRun: string = pausedStart.body.run_id
      const event = (await paused).payload
      expect(event).toMatchObject({ run_id: pausedRun, step_index: 1 })
      const token: string = event.resume_token
      expect(typeof token).toBe("string")

      // Runs whose middle step hangs.
      const runs: Array<string> = []
      for (let i = 0; i < RUNS; i++) {
        const started = await call(first, "POST", "/workflow/run", {
          key: `agent:d${i}:main`,
          steps: [get(`${srv.url}/a/${i}`), get(`${srv.url}/block/${i}`), get(`${srv.url}/c/${i}`)]
        })
        expect(started.status).toBe(200)
        runs.push(started.body.run_id)
      }
      // A non-idempotent step (POST, no idempotency key) in flight at the kill.
      const postStart = await call(first, "POST", "/workflow/run", {
        key: "agent:dpost:main",
        steps: [{ type: "Http", args: { method: "POST", url: `${srv.url}/block/post`, body: { n: 1 } } }]
      })
      expect(postStart.status).toBe(200)
      const postRun: string = postStart.body.run_id
      // An idempotent step allowed one attempt: the attempt the crash interrupted does not use it up (issue 20 point 11).
      const oneStart = await call(first, "POST", "/workflow/run", {
        key: "agent:dmax1:main",
        steps: [{ ...get(`${srv.url}/block/one`), max_attempts: 1 }]
      })
      expect(oneStart.status).toBe(200)
      const oneRun: string = oneStart.body.run_id
      const details = (gw: GatewayProcess) => () =>
        Promise.all([...runs, pausedRun].map(async (id) => (await call(gw, "GET", `/workflow/runs/${id}`)).body))
      await waitFor(
        () =>
          runs.every((_, i) => srv.requested(`/block/${i}`) === 1) && srv.requested("/block/post") === 1 &&
          srv.requested("/block/one") === 1,
        "every run's step 1 to be requested",
        details(first)
      )

      // The crash, mid-run. The held requests die with the process; only then is the block lifted.
      await first.kill()
      expect(first.process.child.signalCode).toBe("SIGKILL")
      await waitFor(() => srv.heldOpen() === 0, "the killed gateway's connections to close")
      srv.release()
      for (let i = 0; i < RUNS; i++) {
        expect(srv.answered(`/a/${i}`)).toBe(1)
        expect(srv.answered(`/block/${i}`)).toBe(0)
        expect(srv.requested(`/c/${i}`)).toBe(0)
      }

      // The same database, a new process.
      const second = await startGatewayProcess(home)
      gateways.push(second)
      const status = async (id: string) => (await call(second, "GET", `/workflow/runs/${id}`)).body.run?.status
      expect(await status(pausedRun)).toBe("paused")
      await waitFor(
        async () => (await Promise.all(runs.map(status))).every((s) => s === "succeeded"),
        "every run to succeed after the restart",
        details(second)
      )
      for (const [i, id] of runs.entries()) {
        const detail = (await call(second, "GET", `/workflow/runs/${id}`)).body
        expect(detail.steps.map((s: any) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"])
        expect([detail.steps[0].attempts.length, detail.steps[2].attempts.length]).toEqual([1, 1])
        // The attempt in flight at the kill is recorded as interrupted (never run again under its number); a GET is
        // safe to retry, so a second attempt ran after the restart.
        expect(detail.steps[1].attempts.map((a: any) => [a.attempt, a.status, a.error?.code ?? null])).toEqual([
          [1, "failed", "interrupted"],
          [2, "succeeded", null]
        ])
        expect(srv.requested(`/a/${i}`)).toBe(1)
        expect(srv.requested(`/c/${i}`)).toBe(1)
        // The GET in flight at the kill may run again; exactly one of its calls succeeded.
        expect(srv.answered(`/block/${i}`)).toBe(1)
      }

      await waitFor(async () => (await status(oneRun)) === "succeeded", "the one-attempt run to succeed", details(second))
      const oneDetail = (await call(second, "GET", `/workflow/runs/${oneRun}`)).body
      expect(oneDetail.steps[0].attempts.map((a: any) => [a.attempt, a.status, a.error?.code ?? null])).toEqual([
        [1, "failed", "interrupted"],
        [2, "succeeded", null]
      ])
      expect(srv.answered("/block/one")).toBe(1)

      // The POST in flight at the kill is not sent again on its own: the run pauses for a retry approval.
      await waitFor(async () => (await status(postRun)) === "paused", "the POST run to pause for a retry", details(second))
      const postDetail = (await call(second, "GET", `/workflow/runs/${postRun}`)).body
      expect(postDetail.run.paused_reason).toBe("retry")
      expect(postDetail.steps[0].attempts.map((a: any) => [a.status, a.error?.code])).toEqual([["failed", "interrupted"]])
      expect(srv.requested("/block/post")).toBe(1)

      // The paused run is still paused (the engine has replayed everything by now) and resumes by token.
      expect(await status(pausedRun)).toBe("paused")
      expect(srv.requested("/p2")).toBe(0)
      expect(await call(second, "POST", "/workflow/resume", { token })).toEqual({
        status: 200,
        body: { status: "ok", run_id: pausedRun }
      })
      await waitFor(async () => (await status(pausedRun)) === "succeeded", "the resumed run to succeed", details(second))
      const resumed = (await call(second, "GET", `/workflow/runs/${pausedRun}`)).body
      expect(resumed.steps.map((s: any) => s.status)).toEqual(["succeeded", "succeeded", "succeeded"])
      expect(srv.requested("/p0")).toBe(1)
      expect(srv.requested("/p2")).toBe(1)
      expect((await call(second, "POST", "/workflow/resume", { token })).status).toBe(404)
    }, 180_000)
  })
}
