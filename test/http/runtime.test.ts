/**
 * `GET /status` and `GET /usage` on a real gateway (issue 14 §1;
 * docs/operations.md "Status", "Usage"), on SQLite and, when
 * SVC_TEST_DATABASE_URL is set, PostgreSQL: the exact status shape with a
 * connected client and node, a paused and a queued run and a pending
 * approval; uptime from the clock; usage per scope (run, key, agent,
 * deployment) from stored attempt costs, zero totals for unknown scopes, 400
 * for two selectors or a bad agent id; operator.read is enough for device
 * tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { postgres } from "../support/databases.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer } from "../support/wsPeer.ts"

const databases = [
  { name: "sqlite", kind: "sqlite", storage: () => StorageMemoryTest },
  ...(postgres === undefined ? [] : [{ name: "postgresql", kind: "postgres", storage: () => postgres!.make() }])
]

const STATUS_KEYS = [
  "db_kind",
  "features",
  "instance_id",
  "is_exposed",
  "peers",
  "policy",
  "queue_depth",
  "role",
  "status",
  "uptime_s",
  "version",
  "ws"
]

for (const database of databases) describe(`GET /status and GET /usage (${database.name})`, () => {
  let gw: TestGateway
  const peers: Array<{ ws: { close: () => void } }> = []

  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true }, database.storage(), { clock: "test" })
  })
  afterAll(async () => {
    for (const peer of peers) peer.ws.close()
    await gw?.close()
  })

  const get = async (path: string, token = gw.adminToken) => {
    const res = await gw.fetch(path, { headers: { authorization: `Bearer ${token}` } })
    return { status: res.status, body: await readJson(res) }
  }

  it("reports this process, its connections and the shared queues, exactly", async () => {
    const client = await connectPeer(gw.url, gw.adminToken)
    const node = await connectPeer(gw.url, gw.adminToken, { role: "node", capabilities: [{ id: "cli.exec", version: "1.0.0" }] })
    peers.push(client.peer, node.peer)

    // One run paused at a Confirm step (with its approval pending), one queued behind it on the same lane.
    const paused = client.peer.next((m) => m.type === "run.paused", 20_000)
    const first = await postJson(gw, "/workflow/run", { key: "agent:status:main", steps: [{ type: "Confirm" }] }, gw.adminToken)
    expect(first.status).toBe(200)
    await paused
    const second = await postJson(gw, "/workflow/run", { key: "agent:status:main", steps: [{ type: "Confirm" }] }, gw.adminToken)
    expect(second.status).toBe(200)

    const { status, body } = await get("/status")
    expect(status).toBe(200)
    expect(Object.keys(body).sort()).toEqual(STATUS_KEYS)
    const self = (await get("/presence")).body.entries[0]
    const effective = (await get("/policy/bundle")).body.effective
    expect(body).toEqual({
      status: "ok",
      version: "0.1.0",
      instance_id: self.instance_id,
      role: "all",
      db_kind: database.kind,
      is_exposed: false,
      uptime_s: 0,
      ws: { connections: 2, by_role: { client: 1, node: 1 }, capability_counts: { "cli.exec": 1 } },
      policy: { enabled: true, effective_sha256: effective.sha256, sources: { deployment: "default", agent: null } },
      queue_depth: { runs: { queued: 1, running: 0, paused: 1 }, approvals_pending: 1, watcher_firings_pending: 0 },
      features: { engine_api: true, automation: false, cli: false, cli_sandbox: "disabled", agent: false },
      // One gateway: itself, holding both connections.
      peers: [{
        instance_id: self.instance_id,
        role: "all",
        version: "0.1.0",
        started_at: expect.any(String),
        last_heartbeat_at: expect.any(String),
        connections: 2
      }]
    })
    expect(body.instance_id).toMatch(/^gw-[0-9a-f-]{36}$/)
  })

  it("counts pending watcher firings (claimed, their run not started yet)", async () => {
    const before = (await get("/status")).body.queue_depth.watcher_firings_pending
    const watcher = await readJson(await postJson(gw, "/watchers", { plan_id: "plan-status", trigger_type: "plan_complete" }, gw.adminToken))
    await gw.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      for (const [firing_id, status] of [["f-status-1", "pending"], ["f-status-2", "pending"], ["f-status-3", "recorded"]]) {
        yield* sql`INSERT INTO watcher_firings ${sql.insert({
          firing_id, watcher_id: watcher.id, trigger_type: "plan_complete", dedupe_key: `run:${firing_id}`, slot: null, nonce_digest: null,
          source_run_id: firing_id, status, run_id: null, error: null, created_at: "2026-01-01T00:00:00.000Z", updated_at: "2026-01-01T00:00:00.000Z"
        })}`
      }
    }))
    expect((await get("/status")).body.queue_depth.watcher_firings_pending).toBe(before + 2)
  })

  it("counts uptime in whole seconds of the gateway's clock", async () => {
    const before = (await get("/status")).body.uptime_s
    await gw.run(TestClock.adjust(Duration.millis(2_500)))
    expect((await get("/status")).body.uptime_s).toBe(before + 2)
  })

  describe("usage", () => {
    // Finished runs and their attempts, written directly: the worker never picks up a finished run.
    const runs = [
      { run_id: "u-r1", key: "agent:alpha:main" },
      { run_id: "u-r2", key: "agent:alpha:dm:bob" },
      { run_id: "u-r3", key: "agent:aXb:main" },
      { run_id: "u-r4", key: "cron:nightly" }
    ]
    const attempts: ReadonlyArray<readonly [string, string | null]> = [
      ["u-r1", JSON.stringify({ input_tokens: 10, output_tokens: 5, usd_micros: 100, duration_ms: 1000, model: "m" })],
      ["u-r1", JSON.stringify({ total_tokens: 30, usd_micros: 50 })],
      ["u-r1", null],
      ["u-r2", JSON.stringify({ input_tokens: 1, output_tokens: 1 })],
      ["u-r3", JSON.stringify({ usd_micros: 7, duration_ms: 3 })],
      ["u-r4", "not json"]
    ]

    beforeAll(async () => {
      const at = "2026-01-01T00:00:00.000Z"
      await gw.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        for (const run of runs) {
          yield* sql`INSERT INTO workflow_runs ${
            sql.insert({
              ...run,
              job_id: `job-${run.run_id}`,
              lane: "main",
              status: "succeeded",
              attempt: 1,
              plan_id: `plan-${run.run_id}`,
              request_id: `req-${run.run_id}`,
              steps_count: 1,
              created_at: at,
              updated_at: at
            })
          }`
        }
        for (const [i, [run_id, cost]] of attempts.entries()) {
          yield* sql`INSERT INTO workflow_attempts ${
            sql.insert({
              attempt_id: `u-a${i}`,
              step_id: `u-s${i}`,
              run_id,
              attempt: 1,
              status: "succeeded",
              started_at: at,
              artifacts: "[]",
              cost,
              policy_applied_override_ids: "[]"
            })
          }`
        }
      }))
    })

    const zero = { attempts: 0, duration_ms: 0, input_tokens: 0, output_tokens: 0, total_tokens: 0, usd_micros: 0, agent_turns: 0 }
    const r1 = { attempts: 3, duration_ms: 1000, input_tokens: 10, output_tokens: 5, total_tokens: 45, usd_micros: 150, agent_turns: 0 }

    it.each([
      ["run_id=u-r1", { kind: "run", run_id: "u-r1" }, r1],
      [`key=${encodeURIComponent("agent:alpha:main")}`, { kind: "key", key: "agent:alpha:main" }, r1],
      ["agent_id=alpha", { kind: "agent", agent_id: "alpha" }, { ...r1, attempts: 4, input_tokens: 11, output_tokens: 6, total_tokens: 47 }],
      // `_` is no wildcard: agent a_b does not own agent:aXb:… keys.
      ["agent_id=a_b", { kind: "agent", agent_id: "a_b" }, zero],
      ["run_id=run-unknown", { kind: "run", run_id: "run-unknown" }, zero]
    ])("sums the attempt costs of %s", async (query, scope, totals) => {
      const { status, body } = await get(`/usage?${query}`)
      expect(status).toBe(200)
      expect(body).toEqual({ status: "ok", generated_at: expect.any(String), scope, totals })
      expect(Object.keys(body).sort()).toEqual(["generated_at", "scope", "status", "totals"])
    })

    it("sums the whole deployment without a selector (unreadable costs skipped)", async () => {
      const { status, body } = await get("/usage")
      expect(status).toBe(200)
      expect(body.scope).toEqual({ kind: "deployment" })
      // Every attempt of the deployment, including those of the /status runs above (which have no cost).
      expect(body.totals).toMatchObject({ duration_ms: 1003, input_tokens: 11, output_tokens: 6, total_tokens: 47, usd_micros: 157 })
      expect(body.totals.attempts).toBeGreaterThanOrEqual(6)
      expect(new Date(body.generated_at).toISOString()).toBe(body.generated_at)
    })

    it.each([
      ["run_id=a&key=b", "run_id and key"],
      ["key=b&agent_id=c", "key and agent_id"],
      ["run_id=a&key=b&agent_id=c", "run_id and key and agent_id"]
    ])("answers 400 invalid_request to %s", async (query, named) => {
      const { status, body } = await get(`/usage?${query}`)
      expect(status).toBe(400)
      expect(body.error).toBe("invalid_request")
      expect(body.message).toContain(named)
    })

    it.each([["agent_id=bad%20id", "agent_id"], ["run_id=", "run_id"]])("answers 400 naming the field for %s", async (query, field) => {
      const { status, body } = await get(`/usage?${query}`)
      expect(status).toBe(400)
      expect(body.error).toBe("invalid_request")
      expect(body.message).toContain(field)
    })
  })

  it("lets device tokens with operator.read read status, metrics and usage; others get 403", async () => {
    const issue = async (scopes: ReadonlyArray<string>) =>
      (await readJson(await postJson(gw, "/auth/device-tokens/issue", { device_id: "dev-ops", role: "client", scopes }, gw.adminToken)))
        .token as string
    const reader = await issue(["operator.read"])
    const writer = await issue(["operator.write"])
    for (const path of ["/status", "/metrics", "/usage"]) {
      expect((await gw.fetch(path, { headers: { authorization: `Bearer ${reader}` } })).status).toBe(200)
      const denied = await gw.fetch(path, { headers: { authorization: `Bearer ${writer}` } })
      expect(denied.status).toBe(403)
      expect((await readJson(denied)).error).toBe("forbidden")
      expect((await gw.fetch(path)).status).toBe(401)
    }
  })
})
