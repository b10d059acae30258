/**
 * Playbooks on a real gateway (issue 13 §1; gateway-api.md "Playbooks"):
 * files under `$SVC_HOME/playbooks` listed with their load errors, one
 * playbook with its compiled steps, the dry run judged by the real policy
 * bundle (`$SVC_HOME/policy.yml`) with nothing written, reload of a file
 * dropped in after start, device-token scopes, 400 "unsupported" while the
 * engine is off; with `SVC_ENGINE_API_ENABLED=1` (SQLite, and PostgreSQL
 * when SVC_TEST_DATABASE_URL is set): execute end to end against a local
 * HTTP server and a CLI step (empty body, caller's fields, twice = two
 * runs), the runtime envelope's run and resume (the resume token of a
 * Confirm pause from `run.paused`), 400s and 404s.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

/** Http to 127.0.0.1 allowed except /ask* (approval) and /denied* (deny); `tool.exec` allowed. */
const POLICY = `v: 1
tools:
  allow: [tool.http.fetch, tool.exec]
network_egress:
  allow: ["http://127.0.0.1:*"]
  require_approval: ["http://127.0.0.1:*/ask*"]
  deny: ["http://127.0.0.1:*/denied*"]
`

const UNSUPPORTED = "unsupported: the workflow engine is not enabled (SVC_ENGINE_API_ENABLED=1)"

/** A home with `policy.yml` and the playbooks of these tests, calling `target` (`http://127.0.0.1:<port>/`). */
const homeWith = (target: string) => {
  const home = mkdtempSync(join(tmpdir(), "svc-pb-http-"))
  writeFileSync(join(home, "policy.yml"), POLICY)
  const put = (dir: string, text: string) => {
    mkdirSync(join(home, "playbooks", dir), { recursive: true })
    writeFileSync(join(home, "playbooks", dir, "playbook.yml"), text)
  }
  put("fetch", `id: fetch
name: Fetch twice
description: GET then POST the target
version: "1.0"
steps:
  - id: get
    command: http ${target}get
    postcondition: {status: 200}
  - id: post
    command: http POST ${target}post
    stdin: hello
`)
  put("approve", `id: approve
name: Needs a yes
version: 1
steps:
  - id: ship
    name: Ship it
    command: http ${target}ship
    approval: required
`)
  put("shell", `id: shell
name: Echo
version: 1
steps:
  - id: say
    command: cli echo "hello world"
`)
  put("dry", `id: dry
name: Dry run
version: 1
steps:
  - id: ok
    command: http ${target}fine
  - id: ask
    command: http ${target}ask/1
  - id: denied
    command: http ${target}denied/1
    approval: required
`)
  put("zz-broken", "id: broken\nname: Broken\nversion: 1\nsteps:\n  - id: s\n    command: ftp get x\n")
  return home
}

const helpers = (gw: TestGateway) => {
  const auth = (token = gw.adminToken) => ({ authorization: `Bearer ${token}` })
  return {
    get: async (path: string, token?: string) => {
      const res = await gw.fetch(path, { headers: auth(token) })
      return { status: res.status, body: await readJson(res) }
    },
    post: async (path: string, body?: unknown, token?: string) => {
      const res = body === undefined
        ? await gw.fetch(path, { method: "POST", headers: auth(token) })
        : await postJson(gw, path, body, token ?? gw.adminToken)
      return { status: res.status, body: await readJson(res) }
    }
  }
}

describe("playbooks with the engine off (SQLite)", () => {
  let gw: TestGateway
  let target: HttpTarget
  let home: string
  let h: ReturnType<typeof helpers>

  beforeAll(async () => {
    target = await startHttpTarget()
    home = homeWith(target.url)
    gw = await startGateway({ rateLimitMax: 10_000, home })
    h = helpers(gw)
  })
  afterAll(async () => {
    await gw?.close()
    await target?.close()
  })

  it("GET /playbooks lists the loaded playbooks by id and the files that failed, with lines", async () => {
    const { status, body } = await h.get("/playbooks")
    expect(status).toBe(200)
    expect(body.playbooks.map((p: any) => p.id)).toEqual(["approve", "dry", "fetch", "shell"])
    expect(body.playbooks[2]).toEqual({
      id: "fetch",
      name: "Fetch twice",
      description: "GET then POST the target",
      version: "1.0",
      step_count: 2,
      file_path: join(home, "playbooks", "fetch", "playbook.yml"),
      loaded_at: expect.stringMatching(/Z$/)
    })
    expect(body.playbooks[0].description).toBeNull()
    expect(body.errors).toEqual([{
      file_path: join(home, "playbooks", "zz-broken", "playbook.yml"),
      message: "steps[0].command: unknown command namespace (expected one of cli, http, web, mcp, node, llm)",
      line: 6
    }])
  })

  it("GET /playbooks/:id answers the manifest and the compiled steps; unknown ids 404", async () => {
    const { status, body } = await h.get("/playbooks/approve")
    expect(status).toBe(200)
    expect(body).toMatchObject({ id: "approve", name: "Needs a yes", version: "1", step_count: 1 })
    expect(body.manifest.steps).toEqual([{ id: "ship", name: "Ship it", command: `http ${target.url}ship`, approval: "required" }])
    expect(body.steps).toEqual([
      {
        type: "Confirm",
        args: { prompt: "Approve playbook step ship: Ship it", __playbook: { playbook_id: "approve", version: "1", step_id: "ship" } },
        idempotency_key: "playbook:approve:ship:approval",
        max_attempts: 3,
        timeout_ms: 60_000
      },
      {
        type: "Http",
        args: { method: "GET", url: `${target.url}ship`, __playbook: { playbook_id: "approve", version: "1", step_id: "ship" } },
        idempotency_key: "playbook:approve:ship",
        max_attempts: 3,
        timeout_ms: 60_000
      }
    ])
    expect(await h.get("/playbooks/nope")).toEqual({ status: 404, body: { error: "not_found", message: "playbook nope not found" } })
  })

  it("POST /playbooks/:id/run judges every compiled step against the policy bundle and writes nothing", async () => {
    const before = (await h.get("/approvals")).body.approvals.length
    const { status, body } = await h.post("/playbooks/dry/run")
    expect(status).toBe(200)
    expect(body.playbook_id).toBe("dry")
    expect(body.steps.map((s: any) => [s.step_id, s.action.type, s.policy.decision])).toEqual([
      ["ok", "Http", "allow"],
      ["ask", "Http", "require_approval"],
      ["denied:approval", "Confirm", "require_approval"],
      ["denied", "Http", "deny"]
    ])
    expect(body.steps[0].action).toMatchObject({ args: { url: `${target.url}fine` }, idempotency_key: "playbook:dry:ok" })
    expect(body.steps[0].policy.rules).toEqual([
      { rule: "tool_policy", outcome: "allow", detail: expect.stringContaining("tool.http.fetch") },
      { rule: "network_egress", outcome: "allow", detail: expect.any(String) }
    ])
    expect(body.steps[1].policy.rules).toContainEqual({ rule: "network_egress", outcome: "require_approval", detail: expect.any(String) })
    expect(body.steps[2].policy).toEqual({
      decision: "require_approval",
      rules: [{ rule: "playbook_approval", outcome: "require_approval", detail: "approval: required" }]
    })
    expect(body.steps[3].policy.rules).toContainEqual({ rule: "network_egress", outcome: "deny", detail: expect.any(String) })
    // A body is ignored; nothing ran and nothing was asked.
    expect((await h.post("/playbooks/dry/run", { anything: true })).status).toBe(200)
    expect(target.calls).toEqual([])
    expect((await h.get("/approvals")).body.approvals.length).toBe(before)
    expect((await h.post("/playbooks/nope/run")).status).toBe(404)
  })

  it("execute and the runtime answer 400 unsupported while the engine is off", async () => {
    for (const [path, body] of [
      ["/playbooks/fetch/execute", undefined],
      ["/playbooks/nope/execute", {}],
      ["/playbooks/runtime", { action: "run", playbook_id: "fetch" }],
      ["/playbooks/runtime", { action: "resume", token: "t" }]
    ] as const) {
      expect(await h.post(path, body)).toEqual({ status: 400, body: { error: "invalid_request", message: UNSUPPORTED } })
    }
  })

  it("device tokens: operator.read lists and reads, but cannot run; operator.write can", async () => {
    const issue = async (scopes: ReadonlyArray<string>) =>
      (await h.post("/auth/device-tokens/issue", { device_id: `dev-${scopes.join("-")}`, role: "client", scopes })).body.token as string
    const reader = await issue(["operator.read"])
    const writer = await issue(["operator.write"])
    expect((await h.get("/playbooks", reader)).status).toBe(200)
    expect((await h.get("/playbooks/fetch", reader)).status).toBe(200)
    expect((await h.post("/playbooks/dry/run", undefined, reader)).status).toBe(403)
    expect((await h.post("/playbooks/fetch/execute", undefined, reader)).status).toBe(403)
    expect((await h.post("/playbooks/runtime", { action: "run", playbook_id: "fetch" }, reader)).status).toBe(403)
    expect((await h.post("/playbooks/dry/run", undefined, writer)).status).toBe(200)
  })

  it("picks up a playbook file dropped in after start", async () => {
    mkdirSync(join(home, "playbooks", "late"))
    writeFileSync(join(home, "playbooks", "late", "playbook.yml"), "id: late\nname: Late\nversion: 1\nsteps:\n  - id: s\n    command: cli true\n")
    await eventually(async () => (await h.get("/playbooks/late")).status === 200, "the late playbook")
  })
})

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", storage: () => postgres!.make() }])
]

for (const database of databases) describe(`playbooks with SVC_ENGINE_API_ENABLED=1 (${database.name})`, () => {
  let gw: TestGateway
  let target: HttpTarget
  let h: ReturnType<typeof helpers>
  let peer: Awaited<ReturnType<typeof connectPeer>>["peer"]

  beforeAll(async () => {
    target = await startHttpTarget()
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, cliEnabled: true, home: homeWith(target.url) }, database.storage())
    h = helpers(gw)
    peer = (await connectPeer(gw.url, gw.adminToken)).peer
  })
  afterAll(async () => {
    peer?.ws.close()
    await gw?.close()
    await target?.close()
  })

  const runOf = async (run_id: string) => (await h.get(`/workflow/runs/${run_id}`)).body
  const settled = (run_id: string, status = "succeeded") =>
    eventually(async () => (await runOf(run_id)).run?.status === status, `run ${run_id} ${status}`, 30_000)

  it("executes a playbook end to end with an empty body; executing again runs it again", async () => {
    const first = await h.post("/playbooks/fetch/execute")
    expect(first.status).toBe(200)
    expect(first.body).toEqual({
      status: "ok",
      job_id: expect.stringMatching(/^job-/),
      run_id: expect.stringMatching(/^run-/),
      playbook_id: "fetch",
      plan_id: expect.stringMatching(/^plan-/),
      request_id: expect.stringMatching(/^req-/),
      key: "cron:playbook-fetch",
      lane: "main",
      steps_count: 2
    })
    await settled(first.body.run_id)
    const detail = await runOf(first.body.run_id)
    expect(detail.steps.map((s: any) => [s.status, s.action.idempotency_key])).toEqual([
      ["succeeded", "playbook:fetch:get"],
      ["succeeded", "playbook:fetch:post"]
    ])
    expect(detail.steps[0].attempts[0].result.status).toBe(200)
    const second = await h.post("/playbooks/fetch/execute")
    expect(second.body.run_id).not.toBe(first.body.run_id)
    await settled(second.body.run_id)
    expect(target.calls.filter((c) => c === "GET /get" || c === "POST /post")).toEqual(["GET /get", "POST /post", "GET /get", "POST /post"])
  })

  it("takes the caller's key, lane, plan_id and request_id", async () => {
    const { status, body } = await h.post("/playbooks/fetch/execute", {
      key: "agent:default:main",
      lane: "cron",
      plan_id: "plan-pb-1",
      request_id: "req-pb-1",
      budgets: { max_duration_ms: 600_000 }
    })
    expect(status).toBe(200)
    expect(body).toMatchObject({ key: "agent:default:main", lane: "cron", plan_id: "plan-pb-1", request_id: "req-pb-1", playbook_id: "fetch" })
    await settled(body.run_id)
  })

  it("runs a CLI step", async () => {
    const { body } = await h.post("/playbooks/shell/execute", {})
    await settled(body.run_id)
    const attempt = (await runOf(body.run_id)).steps[0].attempts[0]
    expect(attempt.result).toMatchObject({ exit_code: 0, stdout: "hello world\n" })
  })

  it("answers 400 for an invalid body and 404 for an unknown playbook", async () => {
    const lane = await h.post("/playbooks/fetch/execute", { lane: "fast" })
    expect(lane.status).toBe(400)
    expect(lane.body.message).toMatch(/^lane: /)
    expect((await h.post("/playbooks/fetch/execute", { key: "nope" })).body.message).toMatch(/^key: /)
    expect((await h.post("/playbooks/fetch/execute", "{")).body).toEqual({ error: "invalid_request", message: expect.stringMatching(/^malformed JSON/) })
    expect((await h.post("/playbooks/fetch/execute", [])).status).toBe(400)
    expect(await h.post("/playbooks/nope/execute")).toEqual({ status: 404, body: { error: "not_found", message: "playbook nope not found" } })
  })

  it("the runtime envelope runs a playbook and resumes its Confirm pause by token", async () => {
    const ran = await h.post("/playbooks/runtime", { action: "run", playbook_id: "fetch", lane: "cron" })
    expect(ran.status).toBe(200)
    expect(ran.body).toMatchObject({ status: "ok", action: "run", playbook_id: "fetch", key: "cron:playbook-fetch", lane: "cron", steps_count: 2 })
    await settled(ran.body.run_id)

    const paused = peer.next((m) => m.type === "run.paused", 20_000)
    const started = await h.post("/playbooks/runtime", { action: "run", playbook_id: "approve" })
    expect(started.body.steps_count).toBe(2)
    const event = (await paused).payload
    expect(event).toMatchObject({ run_id: started.body.run_id, step_index: 0, reason: "approval" })
    expect(target.calls).not.toContain("GET /ship")
    const resumed = await h.post("/playbooks/runtime", { action: "resume", token: event.resume_token })
    expect(resumed).toEqual({ status: 200, body: { status: "ok", action: "resume", run_id: started.body.run_id } })
    await settled(started.body.run_id)
    expect(target.calls).toContain("GET /ship")
    expect((await h.post("/playbooks/runtime", { action: "resume", token: event.resume_token })).status).toBe(404)
    expect((await h.post("/playbooks/runtime", { action: "run", playbook_id: "nope" })).status).toBe(404)
  })

  it("the runtime envelope answers 400 for an invalid body", async () => {
    for (const body of [{ action: "run" }, { action: "resume" }, { action: "stop", playbook_id: "fetch" }, {}, "{"]) {
      const res = await h.post("/playbooks/runtime", body)
      expect(res.status).toBe(400)
      expect(res.body.error).toBe("invalid_request")
    }
  })
})
