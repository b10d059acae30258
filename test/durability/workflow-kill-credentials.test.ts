/**
 * Inline credentials across a real crash (issue 20 §6; docs/workflow.md
 * "Where inline credentials live"), on SQLite and (with
 * SVC_TEST_DATABASE_URL) PostgreSQL: step records are served redacted, yet
 * after `kill -9` and a restart on the same database the executor still
 * sends the real values: an attempt in flight at the kill is retried with the
 * header of the engine's journal, and a run that was still queued behind it
 * in its lane is admitted with the real action kept in `workflow_step_inputs`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { eventually } from "../support/eventually.ts"
import { call, durableBackends, type DurableHome, type GatewayProcess, startGatewayProcess } from "./gatewayProcess.ts"

const DEADLINE_MS = 60_000

/** Records each request's path and headers; holds `/block/` requests open until released. */
const startRecordingServer = async () => {
  const seen: Array<{ path: string; authorization?: string | undefined; apiKey?: string | undefined }> = []
  const held: Array<ServerResponse> = []
  let blocking = true
  const answer = (res: ServerResponse) => {
    if (!res.destroyed && res.socket !== null && !res.socket.destroyed) res.writeHead(200, { "content-type": "application/json" }).end("{}")
  }
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? "/"
    seen.push({ path, authorization: req.headers.authorization, apiKey: req.headers["x-api-key"] as string | undefined })
    if (blocking && path.startsWith("/block/")) held.push(res)
    else answer(res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    heldOpen: () => held.filter((res) => !res.destroyed && res.socket !== null && !res.socket.destroyed).length,
    release: () => {
      blocking = false
      for (const res of held.splice(0)) answer(res)
    },
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
}

for (const backend of durableBackends) {
  describe(`inline credentials survive kill -9 of the gateway (${backend.name})`, () => {
    let home: DurableHome | undefined
    let server: Awaited<ReturnType<typeof startRecordingServer>> | undefined
    const gateways: Array<GatewayProcess> = []

    afterEach(async () => {
      for (const gw of gateways.splice(0)) await gw.kill()
      await server?.close()
      await home?.drop()
      server = home = undefined
    })

    it("replays an in-flight attempt and admits a queued run with the real values; records stay redacted", async () => {
      home = await backend.make()
      const srv = server = await startRecordingServer()
      const first = await startGatewayProcess(home)
      gateways.push(first)
      const key = "agent:creds:main"
      const inFlight = await call(first, "POST", "/workflow/run", {
        key,
        steps: [{ type: "Http", args: { url: `${srv.url}/block/1`, headers: { authorization: "Bearer inline-one" } }, timeout_ms: 120_000 }]
      })
      const queued = await call(first, "POST", "/workflow/run", {
        key,
        steps: [{ type: "Http", args: { url: `${srv.url}/after`, headers: { "x-api-key": "inline-two" } } }]
      })
      expect([inFlight.status, queued.status]).toEqual([200, 200])
      await eventually(() => srv.seen.some((s) => s.path === "/block/1"), "the first run's request", DEADLINE_MS)
      expect((await call(first, "GET", `/workflow/runs/${queued.body.run_id}`)).body.run.status).toBe("queued")

      await first.kill()
      await eventually(() => srv.heldOpen() === 0, "the killed gateway's connection to close", DEADLINE_MS)
      srv.release()

      const second = await startGatewayProcess(home)
      gateways.push(second)
      const status = async (id: string) => (await call(second, "GET", `/workflow/runs/${id}`)).body.run?.status
      await eventually(
        async () => (await status(inFlight.body.run_id)) === "succeeded" && (await status(queued.body.run_id)) === "succeeded",
        "both runs to succeed after the restart",
        DEADLINE_MS
      )
      // Every call carried the real values: the first before the kill, its retry after, and the queued run.
      expect(srv.seen.filter((s) => s.path === "/block/1").map((s) => s.authorization)).toEqual(["Bearer inline-one", "Bearer inline-one"])
      expect(srv.seen.filter((s) => s.path === "/after").map((s) => s.apiKey)).toEqual(["inline-two"])

      const inFlightDetail = (await call(second, "GET", `/workflow/runs/${inFlight.body.run_id}`)).body
      const queuedDetail = (await call(second, "GET", `/workflow/runs/${queued.body.run_id}`)).body
      expect(inFlightDetail.steps[0].action.args.headers).toEqual({ authorization: "[redacted]" })
      expect(queuedDetail.steps[0].action.args.headers).toEqual({ "x-api-key": "[redacted]" })
    }, 180_000)
  })
}
