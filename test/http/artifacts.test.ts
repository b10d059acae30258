/**
 * Run-scoped artifacts on a real gateway (issue 24 §4): a workflow with an
 * Http step stores its answer as an `http_trace` artifact linked to the
 * attempt (listed in the attempt's record, announced as `artifact.created`);
 * it is fetched through its run (bytes with `Cache-Control: no-store`,
 * `artifact.fetched`; metadata with its scope), refused through another run
 * (404), with a malformed id (400) and through the unscoped routes (400
 * naming the run-scoped route). A run whose policy snapshot says
 * `artifacts.default: deny` gets 403, `require_approval` 403
 * `{"error":"require_approval"}`. With the S3 store (a real s3rver) the
 * bytes route answers 302 to a presigned GET that gives the bytes. On
 * SQLite, and on PostgreSQL when SVC_TEST_DATABASE_URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson, startGateway, type StructuredLog, type TestGateway } from "../support/gateway.ts"
import { startS3, type TestS3 } from "../support/s3.ts"
import { connectPeer } from "../support/wsPeer.ts"

const KEY = "agent:default:main"

const policy = (artifacts: string) => `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
artifacts:
  default: ${artifacts}
`

/** A fresh `$SVC_HOME` holding `policy.yml`. */
const homeWithPolicy = (text: string) => {
  const home = mkdtempSync(join(tmpdir(), "svc-artifacts-http-"))
  writeFileSync(join(home, "policy.yml"), text)
  return home
}

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

/** Helpers over one gateway: authenticated GET/POST and a run of one Http step to `url`, awaited to its end. */
const client = (gw: TestGateway) => {
  const get = (path: string, init: RequestInit = {}) => gw.fetch(path, { ...init, headers: { authorization: `Bearer ${gw.adminToken}` } })
  const getJson = async (path: string) => {
    const res = await get(path)
    return { status: res.status, body: await readJson(res) }
  }
  const runHttp = async (url: string) => {
    const res = await postJson(gw, "/workflow/run", { key: KEY, steps: [{ type: "Http", args: { method: "GET", url } }] }, gw.adminToken)
    expect(res.status).toBe(200)
    const run_id = (await readJson(res)).run_id as string
    await eventually(async () => (await getJson(`/workflow/runs/${run_id}`)).body.run?.status === "succeeded", "run succeeded", 30_000)
    const detail = (await getJson(`/workflow/runs/${run_id}`)).body
    const attempt = detail.steps[0].attempts[0]
    return { run_id, attempt, artifact_id: attempt.artifacts[0]?.artifact_id as string }
  }
  return { get, getJson, runHttp }
}

for (const database of databases) describe(`run-scoped artifacts (${database.name})`, () => {
  let gw: TestGateway
  let upstream: HttpTarget
  let peer: Awaited<ReturnType<typeof connectPeer>>["peer"]

  beforeAll(async () => {
    upstream = await startHttpTarget((n) => ({ n }))
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, home: homeWithPolicy(policy("allow")) }, database.storage())
    peer = (await connectPeer(gw.url, gw.adminToken)).peer
  })
  afterAll(async () => {
    peer?.ws.close()
    await gw?.close()
    await upstream?.close()
  })

  it("an Http step's http_trace is fetched through its run, and refused through another", async () => {
    const { get, getJson, runHttp } = client(gw)
    const created = peer.next((m) => m.type === "artifact.created", 30_000)
    const first = await runHttp(upstream.url + "/first?token=hunter2")
    const second = await runHttp(upstream.url + "/second")
    expect(first.attempt.artifacts).toHaveLength(1)
    expect(first.attempt.artifacts[0]).toMatchObject({
      artifact_id: first.artifact_id,
      uri: `artifact://${first.artifact_id}`,
      kind: "http_trace",
      mime_type: "application/json",
      labels: ["http"]
    })
    const event = await created
    expect(event.payload).toMatchObject({ artifact: { artifact_id: first.artifact_id }, run_id: first.run_id, attempt_id: first.attempt.attempt_id })

    const fetched = peer.next((m) => m.type === "artifact.fetched", 30_000)
    const res = await get(`/runs/${first.run_id}/artifacts/${first.artifact_id}`)
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("no-store")
    expect(res.headers.get("content-type")).toContain("application/json")
    const trace: any = await res.json()
    expect(trace.request).toEqual({ method: "GET", url: expect.stringContaining("/first?token=") })
    expect(trace.request.url).not.toContain("hunter2")
    expect(trace.response).toMatchObject({ status: 200, body: { n: expect.any(Number) }, body_truncated: false })
    expect((await fetched).payload).toEqual({ artifact_id: first.artifact_id, run_id: first.run_id })

    const meta = await getJson(`/runs/${first.run_id}/artifacts/${first.artifact_id}/metadata`)
    expect(meta.status).toBe(200)
    expect(meta.body).toEqual({
      artifact: first.attempt.artifacts[0],
      scope: {
        workspace_id: "default",
        agent_id: "default",
        run_id: first.run_id,
        step_id: first.attempt.step_id,
        attempt_id: first.attempt.attempt_id,
        sensitivity: "normal",
        policy_snapshot_id: expect.any(String)
      }
    })

    // Another run's artifact: 404, both routes, both ways round.
    for (const path of [
      `/runs/${second.run_id}/artifacts/${first.artifact_id}`,
      `/runs/${second.run_id}/artifacts/${first.artifact_id}/metadata`,
      `/runs/${first.run_id}/artifacts/${second.artifact_id}`
    ]) {
      const refused = await getJson(path)
      expect(refused.status).toBe(404)
      expect(refused.body).toMatchObject({ error: "not_found" })
    }
    expect((await get(`/runs/${second.run_id}/artifacts/${second.artifact_id}`)).status).toBe(200)
  })

  it("400 for a malformed id and for the unscoped routes; 404 for an unknown id", async () => {
    const { getJson } = client(gw)
    expect(await getJson("/runs/run-x/artifacts/not-a-uuid")).toEqual({
      status: 400,
      body: { error: "invalid_request", message: "invalid artifact id" }
    })
    expect(await getJson("/artifacts/00000000-0000-4000-8000-000000000000")).toEqual({
      status: 400,
      body: { error: "invalid_request", message: "artifact fetch APIs must be scope-bound; use GET /runs/:runId/artifacts/:id" }
    })
    expect(await getJson("/artifacts/anything/metadata")).toEqual({
      status: 400,
      body: { error: "invalid_request", message: "artifact fetch APIs must be scope-bound; use GET /runs/:runId/artifacts/:id/metadata" }
    })
    expect((await getJson("/runs/run-x/artifacts/00000000-0000-4000-8000-000000000000")).status).toBe(404)
  })
})

for (const database of databases) describe(`run-scoped artifacts on the S3 store (s3rver, ${database.name})`, () => {
  let gw: TestGateway
  let upstream: HttpTarget
  let s3: TestS3
  let peer: Awaited<ReturnType<typeof connectPeer>>["peer"]

  beforeAll(async () => {
    s3 = await startS3("svc-artifacts-http")
    upstream = await startHttpTarget((n) => ({ n }))
    gw = await startGateway(
      { rateLimitMax: 10_000, engineApiEnabled: true, home: homeWithPolicy(policy("allow")), ...s3.settings },
      database.storage()
    )
    peer = (await connectPeer(gw.url, gw.adminToken)).peer
  })
  afterAll(async () => {
    peer?.ws.close()
    await gw?.close()
    await upstream?.close()
    await s3?.close()
  })

  it("the bytes route answers 302 to a presigned GET (60 s, no-store) that gives the bytes; the refusals hold", async () => {
    const { get, getJson, runHttp } = client(gw)
    const run = await runHttp(upstream.url + "/s3")
    const other = await runHttp(upstream.url + "/other")
    const fetched = peer.next((m) => m.type === "artifact.fetched", 30_000)
    const res = await get(`/runs/${run.run_id}/artifacts/${run.artifact_id}`, { redirect: "manual" })
    expect(res.status).toBe(302)
    expect(res.headers.get("cache-control")).toBe("no-store")
    const location = res.headers.get("location")!
    expect(location.startsWith(`${s3.endpoint}/svc-artifacts-http/artifacts/${run.artifact_id}.bin?`)).toBe(true)
    expect(new URL(location).searchParams.get("X-Amz-Expires")).toBe("60")
    expect((await fetched).payload).toEqual({ artifact_id: run.artifact_id, run_id: run.run_id })

    const object = await fetch(location)
    expect(object.status).toBe(200)
    expect(object.headers.get("content-type")).toBe("application/json")
    const trace: any = await object.json()
    expect(trace.response).toMatchObject({ status: 200, body: { n: expect.any(Number) } })

    // The same checks come first: another run's artifact is 404, a malformed id 400, no redirect.
    expect((await getJson(`/runs/${other.run_id}/artifacts/${run.artifact_id}`)).status).toBe(404)
    expect((await getJson(`/runs/${run.run_id}/artifacts/not-a-uuid`)).status).toBe(400)
    expect((await getJson(`/runs/${run.run_id}/artifacts/${run.artifact_id}/metadata`)).body.artifact.artifact_id).toBe(run.artifact_id)
  })
})

describe("run-scoped artifacts under a policy that denies or requires approval (sqlite)", () => {
  let upstream: HttpTarget
  beforeAll(async () => {
    upstream = await startHttpTarget(() => ({ ok: true }))
  })
  afterAll(() => upstream?.close())

  for (const [decision, expected] of [
    ["deny", { error: "forbidden", message: "the run's policy denies artifact access" }],
    ["require_approval", { error: "require_approval", message: "artifact access requires approval" }]
  ] as const) {
    it(`artifacts.default: ${decision} → 403 ${expected.error}`, async () => {
      const gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, home: homeWithPolicy(policy(decision)) }, StorageMemoryTest)
      try {
        const { getJson, runHttp } = client(gw)
        const run = await runHttp(upstream.url)
        for (const suffix of ["", "/metadata"]) {
          expect(await getJson(`/runs/${run.run_id}/artifacts/${run.artifact_id}${suffix}`)).toEqual({ status: 403, body: expected })
        }
      } finally {
        await gw.close()
      }
    })
  }
})

describe("an Http step over the artifact quota carries on without its trace (sqlite)", () => {
  let upstream: HttpTarget
  beforeAll(async () => {
    upstream = await startHttpTarget(() => ({ ok: true }))
  })
  afterAll(() => upstream?.close())

  it("the step succeeds, its attempt lists no artifact, and a warning names the rule", async () => {
    const logs: Array<StructuredLog> = []
    const gw = await startGateway(
      { rateLimitMax: 10_000, engineApiEnabled: true, home: homeWithPolicy(policy("allow") + "  max_bytes: 16\n") },
      StorageMemoryTest,
      { logs }
    )
    try {
      const { getJson } = client(gw)
      const res = await postJson(gw, "/workflow/run", { key: KEY, steps: [{ type: "Http", args: { method: "GET", url: upstream.url } }] }, gw.adminToken)
      const run_id = (await readJson(res)).run_id as string
      await eventually(async () => (await getJson(`/workflow/runs/${run_id}`)).body.run?.status === "succeeded", "run succeeded", 30_000)
      const attempt = (await getJson(`/workflow/runs/${run_id}`)).body.steps[0].attempts[0]
      expect(attempt.status).toBe("succeeded")
      expect(attempt.artifacts).toEqual([])
      const warning = logs.find((l) => l.message === "artifact not stored: over quota" || (Array.isArray(l.message) && l.message[0] === "artifact not stored: over quota"))
      expect(warning?.level).toBe("WARN")
      expect(warning?.annotations).toMatchObject({ run_id, kind: "http_trace", rule: "max_bytes" })
    } finally {
      await gw.close()
    }
  })
})

describe("a CLI step's output is a log artifact of its attempt (sqlite)", () => {
  let gw: TestGateway
  beforeAll(async () => {
    const home = homeWithPolicy(`v: 1
tools:
  allow: [tool.exec]
`)
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, cliEnabled: true, home }, StorageMemoryTest)
  })
  afterAll(() => gw?.close())

  it("stores stdout and stderr as a log and serves it through the run", async () => {
    const { get, getJson } = client(gw)
    const res = await postJson(gw, "/workflow/run", { key: KEY, steps: [{ type: "CLI", args: { argv: ["echo", "hello artifacts"] } }] }, gw.adminToken)
    expect(res.status).toBe(200)
    const run_id = (await readJson(res)).run_id as string
    await eventually(async () => ["succeeded", "failed"].includes((await getJson(`/workflow/runs/${run_id}`)).body.run?.status), "run ended", 30_000)
    const attempt = (await getJson(`/workflow/runs/${run_id}`)).body.steps[0].attempts[0]
    expect(attempt.status).toBe("succeeded")
    expect(attempt.artifacts).toEqual([expect.objectContaining({ kind: "log", mime_type: "text/plain; charset=utf-8", labels: ["cli"] })])
    const log = await get(`/runs/${run_id}/artifacts/${attempt.artifacts[0].artifact_id}`)
    expect(log.status).toBe(200)
    expect(await log.text()).toBe("--- stdout ---\nhello artifacts\n\n--- stderr ---\n\n")
  })
})
