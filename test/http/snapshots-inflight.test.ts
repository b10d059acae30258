/**
 * What a restore does with runs that were in flight at the export
 * (docs/operations.md "Runs in flight"): a bundle carries run records, not
 * the durable engine's journal (`cluster_*`). Imported into a started
 * gateway, nothing moves until the next start; at that start the engine
 * replays running and paused runs from their first step without a journal,
 * and the records decide: an attempt the records show as ended is replayed
 * from its record (its action is not executed again), a pause whose run is
 * recorded paused keeps its imported approval (it is not asked again, and
 * approving it continues the run); queued runs are admitted as usual. On
 * SQLite files (the engine's behaviour does not depend on the database).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { storageLayer } from "../../layers/storage/Storage.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { HTTP_POLICY, RUN_KEY } from "../support/populate.ts"

const homeWithPolicy = () => {
  const home = mkdtempSync(join(tmpdir(), "svc-inflight-"))
  writeFileSync(join(home, "policy.yml"), HTTP_POLICY)
  return home
}
const get = async (gw: TestGateway, path: string) =>
  readJson(await gw.fetch(path, { headers: { authorization: `Bearer ${gw.adminToken}` } }))
const post = async (gw: TestGateway, path: string, body: unknown) => {
  const res = await postJson(gw, path, body, gw.adminToken)
  expect(res.status).toBe(200)
  return readJson(res)
}
const run = (gw: TestGateway, run_id: string) => get(gw, `/workflow/runs/${run_id}`)
const status = async (gw: TestGateway, run_id: string) => (await run(gw, run_id)).run.status
const approvalsFor = async (gw: TestGateway, run_id: string) =>
  (await Promise.all(["pending", "approved"].map((s) => get(gw, `/approvals?status=${s}`))))
    .flatMap((r) => r.approvals as Array<any>).filter((a) => a.scope?.run_id === run_id)
const pendingFor = async (gw: TestGateway, run_id: string) =>
  ((await get(gw, "/approvals?status=pending")).approvals as Array<any>).filter((a) => a.scope?.run_id === run_id).map((a) => a.id)

describe("runs in flight at the export, after a restore", () => {
  let server: Server
  let hits: Record<string, number>
  let url: (path: string) => string
  let bundle: any
  let runs: { confirm: string; queued: string; afterStep: string }
  let file: string
  let home: string
  const open: Array<TestGateway> = []
  const start = async () => {
    const gw = await startGateway(
      { rateLimitMax: 10_000, engineApiEnabled: true, snapshotImportEnabled: true, home },
      storageLayer({ kind: "sqlite", filename: file })
    )
    open.push(gw)
    return gw
  }

  beforeAll(async () => {
    hits = {}
    server = createServer((req, res) => {
      hits[req.url ?? ""] = (hits[req.url ?? ""] ?? 0) + 1
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/${path}`
    const source = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, home: homeWithPolicy() })
    open.push(source)
    const confirm = (await post(source, "/workflow/run", { key: RUN_KEY, steps: [{ type: "Confirm" }, { type: "Http", args: { url: url("confirmed") } }] })).run_id
    await eventually(async () => (await status(source, confirm)) === "paused", "paused at its Confirm step", 30_000)
    const queued = (await post(source, "/workflow/run", { key: RUN_KEY, steps: [{ type: "Http", args: { url: url("queued") } }] })).run_id
    const afterStep = (await post(source, "/workflow/run", {
      key: RUN_KEY,
      lane: "cron",
      steps: [{ type: "Http", args: { url: url("first") } }, { type: "Confirm" }]
    })).run_id
    await eventually(async () => (await status(source, afterStep)) === "paused", "paused after its first step", 30_000)
    runs = { confirm, queued, afterStep }
    bundle = await get(source, "/snapshot/export")
    await source.close()
    expect(hits).toEqual({ "/first": 1 })
    file = join(mkdtempSync(join(tmpdir(), "svc-inflight-db-")), "gateway.db")
    home = homeWithPolicy()
  }, 60_000)
  afterAll(async () => {
    for (const gw of open) await gw.close().catch(() => undefined)
    await new Promise((resolve) => server?.close(resolve))
  })

  it("imported into a started gateway, the runs keep their records until the next start", async () => {
    const target = await start()
    expect((await postJson(target, "/snapshot/import", { confirm: "IMPORT", bundle }, target.adminToken)).status).toBe(200)
    expect(await status(target, runs.confirm)).toBe("paused")
    expect(await status(target, runs.queued)).toBe("queued")
    expect(await status(target, runs.afterStep)).toBe("paused")
    expect((await pendingFor(target, runs.confirm)).length).toBe(1)
    await target.close()
  })

  it("at the next start, a pause keeps its imported approval; approving it continues the run, then its lane's queued run", async () => {
    const restarted = await start()
    const imported = bundle.tables.approvals.rows.find((a: any) => a.scope_run_id === runs.confirm).id
    expect(await pendingFor(restarted, runs.confirm)).toEqual([imported])
    expect(await status(restarted, runs.queued)).toBe("queued")
    await post(restarted, `/approvals/${imported}/respond`, { decision: "approved" })
    await eventually(async () => (await status(restarted, runs.confirm)) === "succeeded", "the paused run succeeded", 30_000)
    await eventually(async () => (await status(restarted, runs.queued)) === "succeeded", "the queued run succeeded", 30_000)
    expect(hits["/confirmed"]).toBe(1)
    expect(hits["/queued"]).toBe(1)
    // Never asked again: the run's only approval is the imported one.
    expect((await approvalsFor(restarted, runs.confirm)).map((a) => [a.id, a.status])).toEqual([[imported, "approved"]])
  })

  it("a step the records show as done is replayed from its record, not executed again; the later pause keeps its approval", async () => {
    const restarted = open[open.length - 1]!
    const imported = bundle.tables.approvals.rows.find((a: any) => a.scope_run_id === runs.afterStep).id
    const detail = await run(restarted, runs.afterStep)
    expect(detail.run.status).toBe("paused")
    expect(detail.steps[0].attempts.map((a: any) => a.status)).toEqual(["succeeded"])
    expect(hits["/first"]).toBe(1)
    expect(await pendingFor(restarted, runs.afterStep)).toEqual([imported])
    await post(restarted, `/approvals/${imported}/respond`, { decision: "approved" })
    await eventually(async () => (await status(restarted, runs.afterStep)) === "succeeded", "the run after its step succeeded", 30_000)
    expect(hits["/first"]).toBe(1)
    expect((await approvalsFor(restarted, runs.afterStep)).map((a) => [a.id, a.status])).toEqual([[imported, "approved"]])
  })
})
