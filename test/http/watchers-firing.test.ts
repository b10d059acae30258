/**
 * Watchers firing on a real gateway (issue 13 §2, §4; docs/watchers.md
 * "Firing"), on SQLite and on PostgreSQL when SVC_TEST_DATABASE_URL is set:
 *
 * - periodic, on `TestClock`: one firing per slot, each announced as
 *   `watcher.fired`; with SVC_AUTOMATION_ENABLED=1 it starts a run (inline
 *   steps or a playbook; key `cron:watcher-<id>`, lane `cron`, trigger kind
 *   `cron`), an unknown playbook leaves it `failed`, nothing to run leaves it
 *   `recorded`; with automation off every firing is only recorded;
 * - missed slots: a gateway restarted on the same database several slots
 *   later fires the current slot once, not each missed one;
 * - plan_complete (live clock): a run of the plan that succeeds or fails
 *   fires it (once per run), a cancelled run or another plan's run does not,
 *   and the run it starts has a plan of its own (no loop);
 * - two gateways on one PostgreSQL schema, both on TestClock: one firing
 *   per slot between them.
 *
 * Time moves with `TestClock`: after a jump, the ticker (1 s
 * `Schedule.spaced`) is nudged one second at a time until the firing shows;
 * the interval is ten minutes, so the nudges never reach the next slot.
 */
import { Effect } from "effect"
import { TestClock } from "effect/testing"
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StorageMemoryTest } from "../../src/app/gateway.ts"
import { storageLayer } from "../../layers/storage/Storage.ts"
import { WatchersRepo } from "../../services/watchers/WatchersRepo.ts"
import type { WatcherFiring } from "../../services/watchers/schema.ts"
import { RunsRepo } from "../../services/workflow/runs/RunsRepo.ts"
import { Workflow } from "../../services/workflow/Workflow.ts"
import { postgresDatabase, postgresUrl, sharedPostgresSchema } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { type HttpTarget, startHttpTarget } from "../support/httpTarget.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"
import { connectPeer, type TestPeer } from "../support/wsPeer.ts"

const MINUTE = 60_000
/** Interval of the periodic watchers: long enough that the one-second nudges never reach the next slot. */
const SLOT = 10 * MINUTE
/** WS pings driven by TestClock must not fire while the tests jump ahead. */
const QUIET_WS = { wsPingIntervalMs: 1_000_000_000, wsPongTimeoutMs: 2_000_000_000 } as const

/**
 * PostgreSQL for gateways on TestClock: without a connect timeout (it runs
 * on the gateway's clock, which the tests move much faster than real time).
 */
const clockSafeUrl = postgresUrl === undefined ? undefined : (() => {
  const url = new URL(postgresUrl)
  url.searchParams.set("connect_timeout", "0")
  return url.toString()
})()

const databases = [
  { name: "sqlite", storage: () => StorageMemoryTest },
  ...(clockSafeUrl === undefined ? [] : [{ name: "postgresql", storage: () => postgresDatabase(clockSafeUrl).make() }])
]

const realSleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const firingsOf = (gw: TestGateway, watcherId: number): Promise<ReadonlyArray<WatcherFiring>> =>
  gw.run(Effect.gen(function*() {
    const repo = yield* WatchersRepo
    return yield* repo.firings(watcherId)
  }).pipe(Effect.provide(WatchersRepo.layer)))

/** Nudges every gateway's clock by one second (one tick of its ticker) until `check` holds. */
const tickUntil = (gws: ReadonlyArray<TestGateway>, check: () => Promise<boolean>, what: string) =>
  eventually(async () => {
    await Promise.all(gws.map((gw) => gw.run(TestClock.adjust(1000))))
    await realSleep(20)
    return check()
  }, what, 30_000)

/** A few more ticks on every gateway: time for anything that should NOT happen to show. */
const moreTicks = async (gws: ReadonlyArray<TestGateway>, n = 5) => {
  for (let i = 0; i < n; i++) {
    await Promise.all(gws.map((gw) => gw.run(TestClock.adjust(1000))))
    await realSleep(20)
  }
}

const createWatcher = async (gw: TestGateway, body: unknown) => {
  const res = await postJson(gw, "/watchers", body, gw.adminToken)
  expect(res.status).toBe(201)
  return (await readJson(res)).id as number
}

/** `watcher.fired` events received so far (taken from the peer's inbox). */
const firedEvents = async (peer: TestPeer, count: number) => {
  const events: Array<any> = []
  for (let i = 0; i < count; i++) events.push(await peer.next((m) => m.type === "watcher.fired", 10_000))
  return events
}
const noMoreFired = (peer: TestPeer) => expect(peer.next((m) => m.type === "watcher.fired", 300)).rejects.toThrow(/timed out/)

/** A `$SVC_HOME` with the playbook `nightly` (one Http step). */
const homeWithPlaybook = () => {
  const home = mkdtempSync(join(tmpdir(), "svc-watchers-"))
  mkdirSync(join(home, "playbooks", "nightly"), { recursive: true })
  writeFileSync(
    join(home, "playbooks", "nightly", "playbook.yml"),
    "id: nightly\nname: Nightly check\nversion: 1\nsteps:\n  - id: fetch\n    command: http GET https://example.com/\n"
  )
  return home
}

for (const database of databases) describe(`periodic watchers on TestClock (${database.name})`, () => {
  let gw: TestGateway
  let peer: TestPeer

  beforeAll(async () => {
    gw = await startGateway({ rateLimitMax: 10_000, automationEnabled: true, home: homeWithPlaybook(), ...QUIET_WS }, database.storage(), {
      clock: "test"
    })
    peer = (await connectPeer(gw.url, gw.adminToken)).peer
  })
  afterAll(async () => {
    peer?.ws.close()
    await gw?.close()
  })

  it("fires once per slot; with automation on, inline steps and playbooks start runs (cron:watcher-<id>, lane cron)", async () => {
    const inline = await createWatcher(gw, {
      plan_id: "plan-inline",
      trigger_type: "periodic",
      trigger_config: { interval_ms: SLOT, steps: [{ type: "Confirm" }] }
    })
    const playbook = await createWatcher(gw, {
      plan_id: "plan-playbook",
      trigger_type: "periodic",
      trigger_config: { interval_ms: SLOT, playbook_id: "nightly" }
    })
    const missing = await createWatcher(gw, {
      plan_id: "plan-missing",
      trigger_type: "periodic",
      trigger_config: { interval_ms: SLOT, playbook_id: "no-such-playbook" }
    })
    const bare = await createWatcher(gw, { plan_id: "plan-bare", trigger_type: "periodic", trigger_config: { interval_ms: SLOT } })
    const ids = [inline, playbook, missing, bare]
    const settled = (slots: number) => async () => {
      for (const id of ids) {
        const firings = await firingsOf(gw, id)
        if (firings.length < slots || firings.some((f) => f.status === "pending")) return false
      }
      return true
    }

    await tickUntil([gw], settled(1), "slot 0 fired")
    for (let slot = 1; slot <= 2; slot++) {
      await gw.run(TestClock.adjust(SLOT))
      await tickUntil([gw], settled(slot + 1), `slot ${slot} fired`)
    }
    await moreTicks([gw])

    const slots = [0, SLOT, 2 * SLOT]
    const byId = new Map<number, ReadonlyArray<WatcherFiring>>()
    for (const id of ids) {
      const firings = await firingsOf(gw, id)
      expect(firings.map((f) => f.slot), `watcher ${id}`).toEqual(slots)
      byId.set(id, firings)
    }
    expect(byId.get(inline)!.every((f) => f.status === "enqueued" && f.run_id !== null && f.error === null)).toBe(true)
    expect(byId.get(playbook)!.every((f) => f.status === "enqueued" && f.run_id !== null)).toBe(true)
    expect(byId.get(missing)!.map((f) => [f.status, f.run_id, f.error])).toEqual(
      slots.map(() => ["failed", null, "playbook no-such-playbook not found"])
    )
    expect(byId.get(bare)!.map((f) => [f.status, f.run_id])).toEqual(slots.map(() => ["recorded", null]))

    // The runs: key cron:watcher-<id>, lane cron, the watcher's plan, trigger kind cron with the firing's metadata.
    for (const id of [inline, playbook]) {
      for (const firing of byId.get(id)!) {
        const { run, job } = await gw.run(Effect.gen(function*() {
          const detail = yield* (yield* Workflow).get(firing.run_id!)
          const job = yield* (yield* RunsRepo).getJob(detail.run.job_id)
          return { run: detail.run, job: job! }
        }))
        expect(run).toMatchObject({ key: `cron:watcher-${id}`, lane: "cron", plan_id: id === inline ? "plan-inline" : "plan-playbook" })
        expect(job.trigger_kind).toBe("cron")
        expect(job.trigger).toMatchObject({ watcher_id: id, firing_id: firing.firing_id, slot: firing.slot })
        if (id === playbook) expect(job.trigger).toMatchObject({ playbook_id: "nightly" })
      }
    }

    // One watcher.fired per firing, carrying the firing.
    const events = await firedEvents(peer, ids.length * slots.length)
    await noMoreFired(peer)
    const stored = [...byId.values()].flat()
    expect(events.map((e) => e.payload).sort((a, b) => (a.firing_id < b.firing_id ? -1 : 1))).toEqual(
      [...stored].sort((a, b) => (a.firing_id < b.firing_id ? -1 : 1))
    )
    expect(events.every((e) => e.scope?.kind === "watcher")).toBe(true)
  }, 120_000)

  it("an inactive watcher does not fire; reactivated, it fires the current slot", async () => {
    const id = await createWatcher(gw, { plan_id: "plan-pause", trigger_type: "periodic", trigger_config: { interval_ms: SLOT } })
    await tickUntil([gw], async () => (await firingsOf(gw, id)).length === 1, "first slot fired")
    expect((await gw.fetch(`/watchers/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ active: false })
    })).status).toBe(200)
    await gw.run(TestClock.adjust(SLOT))
    await moreTicks([gw])
    expect((await firingsOf(gw, id)).length).toBe(1)
    await gw.fetch(`/watchers/${id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ active: true })
    })
    await tickUntil([gw], async () => (await firingsOf(gw, id)).length === 2, "slot fired after reactivation")
  }, 60_000)
})

describe("periodic watchers with automation off (sqlite)", () => {
  it("records every firing and starts no run", async () => {
    const gw = await startGateway({ rateLimitMax: 10_000, ...QUIET_WS }, StorageMemoryTest, { clock: "test" })
    try {
      const id = await createWatcher(gw, {
        plan_id: "plan-off",
        trigger_type: "periodic",
        trigger_config: { interval_ms: SLOT, steps: [{ type: "Confirm" }] }
      })
      await tickUntil([gw], async () => (await firingsOf(gw, id)).some((f) => f.status === "recorded"), "slot 0 recorded")
      await gw.run(TestClock.adjust(SLOT))
      await tickUntil([gw], async () => (await firingsOf(gw, id)).filter((f) => f.status === "recorded").length === 2, "slot 1 recorded")
      const firings = await firingsOf(gw, id)
      expect(firings.map((f) => [f.slot, f.status, f.run_id])).toEqual([[0, "recorded", null], [SLOT, "recorded", null]])
      const runs = await gw.run(Effect.gen(function*() {
        return yield* (yield* Workflow).list({})
      }))
      expect(runs.runs).toEqual([])
    } finally {
      await gw.close()
    }
  }, 60_000)
})

/** Storage that outlives one gateway: a SQLite file, or one PostgreSQL schema. */
const persistentStores = [
  {
    name: "sqlite file",
    make: async () => {
      const file = join(mkdtempSync(join(tmpdir(), "svc-watchers-db-")), "gateway.db")
      return { layer: () => storageLayer({ kind: "sqlite", filename: file }), drop: async () => {} }
    }
  },
  ...(clockSafeUrl === undefined ? [] : [{ name: "postgresql", make: () => sharedPostgresSchema(clockSafeUrl) }])
]

for (const store of persistentStores) describe(`missed slots (${store.name})`, () => {
  it("a restart several slots later fires the current slot once, not each missed one", async () => {
    const db = await store.make()
    try {
      const first = await startGateway({ rateLimitMax: 10_000, ...QUIET_WS }, db.layer(), { clock: "test" })
      let id: number
      try {
        id = await createWatcher(first, { plan_id: "plan-restart", trigger_type: "periodic", trigger_config: { interval_ms: SLOT } })
        await tickUntil([first], async () => (await firingsOf(first, id)).length === 1, "slot 0 fired")
        await first.run(TestClock.adjust(SLOT))
        await tickUntil([first], async () => (await firingsOf(first, id)).length === 2, "slot 1 fired")
      } finally {
        await first.close()
      }
      // Stopped from slot 1 until 3 minutes into slot 5: slots 2, 3 and 4 pass unseen.
      const second = await startGateway({ rateLimitMax: 10_000, ...QUIET_WS }, db.layer(), {
        clock: "test",
        clockStartMs: 5 * SLOT + 3 * MINUTE
      })
      try {
        await tickUntil([second], async () => (await firingsOf(second, id)).length === 3, "the current slot fired")
        await moreTicks([second], 10)
        expect((await firingsOf(second, id)).map((f) => f.slot)).toEqual([0, SLOT, 5 * SLOT])
      } finally {
        await second.close()
      }
    } finally {
      await db.drop()
    }
  }, 120_000)
})

/**
 * The agent bundle of the plan_complete tests: Http to 127.0.0.1 allowed
 * (test/http/workflow.test.ts uses the same).
 */
const POLICY = `v: 1
tools:
  allow: [tool.http.fetch]
network_egress:
  allow: ["http://127.0.0.1:*"]
`

for (const database of databases) describe(`plan_complete watchers (${database.name})`, () => {
  let gw: TestGateway
  let http: HttpTarget
  let target: string

  beforeAll(async () => {
    http = await startHttpTarget(() => ({}))
    target = http.url
    const home = mkdtempSync(join(tmpdir(), "svc-watchers-pc-"))
    writeFileSync(join(home, "policy.yml"), POLICY)
    gw = await startGateway({ rateLimitMax: 10_000, engineApiEnabled: true, automationEnabled: true, home }, database.storage())
  })
  afterAll(async () => {
    await gw?.close()
    await http?.close()
  })

  const post = async (path: string, body: unknown) => {
    const res = await postJson(gw, path, body, gw.adminToken)
    return { status: res.status, body: await readJson(res) }
  }
  const runStatus = async (runId: string) =>
    (await readJson(await gw.fetch(`/workflow/runs/${runId}`, { headers: { authorization: `Bearer ${gw.adminToken}` } }))).run?.status
  const runToEnd = async (body: unknown, expected: string) => {
    const started = await post("/workflow/run", body)
    expect(started.status).toBe(200)
    await eventually(async () => (await runStatus(started.body.run_id)) === expected, `run ${expected}`, 30_000)
    return started.body.run_id as string
  }

  it("fires when a run of its plan succeeds or fails, not when it is cancelled or for another plan", async () => {
    const watched = await createWatcher(gw, {
      plan_id: "plan-watched",
      trigger_type: "plan_complete",
      trigger_config: { steps: [{ type: "Http", args: { url: target } }] }
    })
    const other = await createWatcher(gw, { plan_id: "plan-other", trigger_type: "plan_complete" })
    const http = { type: "Http", args: { url: target } }

    const succeeded = await runToEnd({ key: "agent:default:main", plan_id: "plan-watched", steps: [http] }, "succeeded")
    const settledFirings = (n: number) => async () => {
      const firings = await firingsOf(gw, watched)
      return firings.length === n && firings.every((f) => f.status !== "pending")
    }
    await eventually(settledFirings(1), "first firing", 30_000)

    const paused = await post("/workflow/run", { key: "agent:pc:main", plan_id: "plan-watched", steps: [{ type: "Confirm" }] })
    await eventually(async () => (await runStatus(paused.body.run_id)) === "paused", "run paused", 30_000)
    expect((await post("/workflow/cancel", { run_id: paused.body.run_id })).body.cancelled).toBe(true)
    await runToEnd({ key: "agent:default:main", plan_id: "plan-elsewhere", steps: [http] }, "succeeded")
    // Unsupported kind, one attempt: the run fails.
    const failed = await runToEnd({ key: "agent:default:main", plan_id: "plan-watched", steps: [{ type: "Decide", max_attempts: 1 }] }, "failed")
    await eventually(settledFirings(2), "second firing", 30_000)

    const firings = await firingsOf(gw, watched)
    expect(firings.map((f) => [f.source_run_id, f.status, f.slot, f.nonce_digest])).toEqual([
      [succeeded, "enqueued", null, null],
      [failed, "enqueued", null, null]
    ])
    expect(await firingsOf(gw, other)).toEqual([])

    // The runs it started: a plan of their own, key cron:watcher-<id>, lane cron, trigger kind hook.
    for (const firing of firings) {
      await eventually(async () => (await runStatus(firing.run_id!)) === "succeeded", "triggered run succeeded", 30_000)
      const { run, job } = await gw.run(Effect.gen(function*() {
        const detail = yield* (yield* Workflow).get(firing.run_id!)
        return { run: detail.run, job: (yield* (yield* RunsRepo).getJob(detail.run.job_id))! }
      }))
      expect(run.plan_id).toMatch(/^plan-[0-9a-f-]{36}$/)
      expect(run).toMatchObject({ key: `cron:watcher-${watched}`, lane: "cron" })
      expect(job.trigger_kind).toBe("hook")
      expect(job.trigger).toMatchObject({ watcher_id: watched, firing_id: firing.firing_id, source_run_id: firing.source_run_id })
    }
    // Their own ends fired nothing more (their plans are not plan-watched).
    await realSleep(300)
    expect((await firingsOf(gw, watched)).length).toBe(2)
  }, 120_000)
})

if (clockSafeUrl !== undefined) describe("two gateways on one PostgreSQL schema", () => {
  it("fire a periodic watcher once per slot between them", async () => {
    const db = await sharedPostgresSchema(clockSafeUrl)
    const gws: Array<TestGateway> = []
    const peers: Array<TestPeer> = []
    try {
      for (let i = 0; i < 2; i++) {
        // Logs kept, not printed: the two single-runner workflow engines contend for one schema's shard locks (docs/watchers.md).
        gws.push(await startGateway({ rateLimitMax: 10_000, ...QUIET_WS }, db.layer(), { clock: "test", logs: [] }))
        peers.push((await connectPeer(gws[i]!.url, gws[i]!.adminToken)).peer)
      }
      const [a, b] = gws as [TestGateway, TestGateway]
      const id = await createWatcher(a, { plan_id: "plan-shared", trigger_type: "periodic", trigger_config: { interval_ms: SLOT } })
      const count = async () => (await firingsOf(b, id)).length
      await tickUntil(gws, async () => (await count()) === 1, "slot 0 fired")
      for (let slot = 1; slot <= 3; slot++) {
        // Both clocks jump together: both tickers race for the slot.
        await Promise.all(gws.map((gw) => gw.run(TestClock.adjust(SLOT))))
        await tickUntil(gws, async () => (await count()) === slot + 1, `slot ${slot} fired`)
        await moreTicks(gws, 3)
      }
      const firings = await firingsOf(a, id)
      expect(firings.map((f) => f.slot)).toEqual([0, SLOT, 2 * SLOT, 3 * SLOT])
      // Each firing was announced once, by the gateway that won it.
      const drain = async (peer: TestPeer) => {
        const events: Array<any> = []
        for (;;) {
          try {
            events.push(await peer.next((m) => m.type === "watcher.fired", 300))
          } catch {
            return events
          }
        }
      }
      const announced = [...(await drain(peers[0]!)), ...(await drain(peers[1]!))].map((e) => e.payload.firing_id).sort()
      expect(announced).toEqual(firings.map((f) => f.firing_id).sort())
    } finally {
      for (const peer of peers) peer.ws.close()
      await Promise.all(gws.map((gw) => gw.close()))
      await db.drop()
    }
  }, 180_000)
})
