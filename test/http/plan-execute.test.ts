/**
 * `POST /plan {execute: true}` end to end on a real gateway (issue 12 §2;
 * docs/planner.md "Execution"): a success starts a run of its steps at once
 * (`run_id` in the answer, the run carries the plan's id); an escalation
 * starts it once its approval is approved, exactly once, and never when it is
 * denied; `execute` absent or false runs nothing; a plan still waiting to run
 * is checked again at start-up, and a restart never starts a second run.
 *
 * The planner's steps (Research, Web, Pay, Message) have no executor here, so
 * the runs fail or pause; only their existence and records are asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { storageLayer } from "../../layers/storage/Storage.ts"
import { keyProblem } from "../../services/workflow/runs/keys.ts"
import { keyPart, planRunKey } from "../../services/workflow/planExecution.ts"
import { postgres } from "../support/databases.ts"
import { eventually } from "../support/eventually.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

const ALLOW = ["spend:4500:EUR:Flower_Shop", "pii:basic_contact", "legal:none"]
const trigger = (thread_id: string) => ({ channel: "telegram", thread_id, message: { text: "Order the usual flowers" } })

const client = (gw: TestGateway) => {
  const auth = { authorization: `Bearer ${gw.adminToken}` }
  const get = async (path: string) => {
    const res = await gw.fetch(path, { headers: auth })
    return { status: res.status, body: await readJson(res) }
  }
  return {
    plan: async (body: unknown) => {
      const res = await postJson(gw, "/plan", body, gw.adminToken)
      return { status: res.status, body: await readJson(res) }
    },
    respond: async (approvalId: number, decision: "approved" | "denied") => {
      const res = await postJson(gw, `/approvals/${approvalId}/respond`, { decision }, gw.adminToken)
      expect(res.status).toBe(200)
      return readJson(res)
    },
    run: (runId: string) => get(`/workflow/runs/${runId}`),
    /** The runs recorded for `planId`. */
    runsOf: async (planId: string): Promise<Array<{ run_id: string; plan_id: string; request_id: string; key: string; lane: string }>> => {
      const { body, status } = await get("/workflow/runs?limit=500")
      expect(status).toBe(200)
      return body.runs.filter((run: { plan_id: string }) => run.plan_id === planId)
    }
  }
}

const suite = (name: string, start: () => Promise<TestGateway>) =>
  describe(`POST /plan with execute (${name})`, () => {
    let gw: TestGateway
    let api: ReturnType<typeof client>
    beforeAll(async () => {
      gw = await start()
      api = client(gw)
    })
    afterAll(() => gw?.close())

    it("runs a success at once: the answer carries run_id, the run carries the plan's ids and steps", async () => {
      const { body, status } = await api.plan({ request_id: "exec-ok", trigger: trigger("t-ok"), tags: ALLOW, execute: true })
      expect(status).toBe(200)
      expect(body.status).toBe("success")
      expect(body.run_id).toMatch(/^run-/)
      const run = await api.run(body.run_id)
      expect(run.status).toBe(200)
      expect(run.body.run).toMatchObject({
        run_id: body.run_id,
        plan_id: body.plan_id,
        request_id: "exec-ok",
        key: "agent:default:telegram:channel:t-ok",
        lane: "main",
        steps_count: 4
      })
      expect(run.body.steps.map((s: { action: { type: string } }) => s.action.type)).toEqual(["Research", "Web", "Pay", "Message"])
      expect(run.body.steps[1].action.idempotency_key).toBe("exec-ok:1")

      // A repeat answers the same plan and run; nothing new starts.
      const again = await api.plan({ request_id: "exec-ok", trigger: trigger("t-ok"), tags: ALLOW, execute: true })
      expect(again.body).toEqual(body)
      expect((await api.runsOf(body.plan_id)).map((r) => r.run_id)).toEqual([body.run_id])
    })

    it("starts one run for concurrent duplicates of a success", async () => {
      const body = { request_id: "exec-dup", trigger: trigger("t-dup"), tags: ALLOW, execute: true }
      const answers = await Promise.all(Array.from({ length: 5 }, () => api.plan(body)))
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200])
      const planId = answers[0].body.plan_id
      expect(new Set(answers.map((a) => a.body.plan_id))).toEqual(new Set([planId]))
      const runs = await api.runsOf(planId)
      expect(runs).toHaveLength(1)
      for (const a of answers) if (a.body.run_id !== undefined) expect(a.body.run_id).toBe(runs[0].run_id)
      expect((await api.plan(body)).body.run_id).toBe(runs[0].run_id)
    })

    it("runs an escalation only once its approval is approved, exactly once", async () => {
      const request = { request_id: "exec-esc", trigger: trigger("t-esc"), execute: true }
      const { body } = await api.plan(request)
      expect(body.status).toBe("escalate")
      expect(body.run_id).toBeUndefined()
      expect(await api.runsOf(body.plan_id)).toEqual([])
      expect((await api.plan(request)).body).toEqual(body)

      await api.respond(body.escalation.approval_id, "approved")
      await eventually(async () => (await api.runsOf(body.plan_id)).length > 0, "the plan's run")
      const [run] = await api.runsOf(body.plan_id)
      expect(run).toMatchObject({ plan_id: body.plan_id, request_id: "exec-esc", key: "agent:default:telegram:channel:t-esc" })
      // The steps a success would have had: no spend tag, so no Pay step.
      const detail = await api.run(run.run_id)
      expect(detail.body.steps.map((s: { action: { type: string } }) => s.action.type)).toEqual(["Research", "Web", "Message"])

      // Answering again (already decided) and repeating the request start nothing more; the repeat shows the run.
      await api.respond(body.escalation.approval_id, "approved")
      const repeat = await api.plan(request)
      expect(repeat.body).toEqual({ ...body, run_id: run.run_id })
      expect((await api.runsOf(body.plan_id)).map((r) => r.run_id)).toEqual([run.run_id])
    })

    it("never runs an escalation whose approval is denied", async () => {
      const request = { request_id: "exec-deny", trigger: trigger("t-deny"), execute: true }
      const { body } = await api.plan(request)
      expect(body.status).toBe("escalate")
      const answer = await api.respond(body.escalation.approval_id, "denied")
      expect(answer.approval.status).toBe("denied")
      // The approvals listener runs before the respond call answers: had it started a run, it would be recorded.
      expect(await api.runsOf(body.plan_id)).toEqual([])
      expect((await api.plan(request)).body).toEqual(body)
      expect(await api.runsOf(body.plan_id)).toEqual([])
    })

    it("runs nothing without execute or with execute: false, and treats them as the same request", async () => {
      const ok = await api.plan({ request_id: "exec-off", trigger: trigger("t-off"), tags: ALLOW, execute: false })
      expect(ok.body.status).toBe("success")
      expect(ok.body.run_id).toBeUndefined()
      expect((await api.plan({ request_id: "exec-off", trigger: trigger("t-off"), tags: ALLOW })).body).toEqual(ok.body)
      expect(await api.runsOf(ok.body.plan_id)).toEqual([])

      const esc = await api.plan({ request_id: "exec-off-esc", trigger: trigger("t-off") })
      await api.respond(esc.body.escalation.approval_id, "approved")
      expect(await api.runsOf(esc.body.plan_id)).toEqual([])
    })

    it("answers 409 when execute: true repeats a request_id planned without it", async () => {
      const first = await api.plan({ request_id: "exec-409", trigger: trigger("t-409"), tags: ALLOW })
      const again = await api.plan({ request_id: "exec-409", trigger: trigger("t-409"), tags: ALLOW, execute: true })
      expect(again.status).toBe(409)
      expect(again.body.error).toBe("conflict")
      expect(await api.runsOf(first.body.plan_id)).toEqual([])
    })

    it("runs nothing for a failure", async () => {
      const { body } = await api.plan({
        request_id: "exec-fail",
        trigger: trigger("t-fail"),
        tags: ["spend:60000:EUR", "pii:none", "legal:none"],
        execute: true
      })
      expect(body.status).toBe("failure")
      expect(body.run_id).toBeUndefined()
      expect(await api.runsOf(body.plan_id)).toEqual([])
    })

    it("answers 400 naming execute when it is not a boolean", async () => {
      const { body, status } = await api.plan({ request_id: "exec-bad", trigger: trigger("t-bad"), execute: "yes" })
      expect(status).toBe(400)
      expect(body.error).toBe("invalid_request")
      expect(body.message).toBe('execute: expected a boolean, got "yes"')
    })
  })

suite("SQLite", () => startGateway({ rateLimitMax: 10_000, engineApiEnabled: true }))
if (postgres !== undefined) {
  const pg = postgres
  suite("PostgreSQL", () => startGateway({ rateLimitMax: 10_000, engineApiEnabled: true }, pg.make()))
}

describe("plan execution across restarts (SQLite file)", () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "svc-plan-exec-"))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const start = () =>
    startGateway(
      { rateLimitMax: 10_000, engineApiEnabled: true, home: dir },
      storageLayer({ kind: "sqlite", filename: join(dir, "gateway.db") })
    )

  it("starts a plan whose approval was approved while no listener heard it, once, at start-up", async () => {
    const first = await start()
    const { body } = await client(first).plan({ request_id: "exec-restart", trigger: trigger("t-restart"), execute: true })
    expect(body.status).toBe("escalate")
    // Approved behind the gateway's back: no listener is told (as when a crash follows the approval's commit).
    await first.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE approvals SET status = 'approved', resolved_at = ${new Date().toISOString()},
                 resolved_by = ${JSON.stringify({ kind: "system", principal: "test" })}, reason = 'test'
                 WHERE id = ${body.escalation.approval_id}`
    }))
    expect(await client(first).runsOf(body.plan_id)).toEqual([])
    await first.close()

    const second = await start()
    await eventually(async () => (await client(second).runsOf(body.plan_id)).length > 0, "the run started at start-up")
    const [run] = await client(second).runsOf(body.plan_id)
    expect((await client(second).plan({ request_id: "exec-restart", trigger: trigger("t-restart"), execute: true })).body.run_id)
      .toBe(run.run_id)
    await second.close()

    const third = await start()
    try {
      // The plan is recorded as started with its run, so the start-up check leaves it alone.
      const rows = await third.run(Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        return yield* sql<{ execution_state: string; run_id: string }>`SELECT execution_state, run_id FROM plans WHERE plan_id = ${body.plan_id}`
      }))
      expect(rows).toEqual([{ execution_state: "started", run_id: run.run_id }])
      expect((await client(third).runsOf(body.plan_id)).map((r) => r.run_id)).toEqual([run.run_id])
    } finally {
      await third.close()
    }
  })
})

describe("planRunKey", () => {
  it("is a valid key for any trigger, distinct for distinct threads", () => {
    const keys = [
      planRunKey(trigger("t-1")),
      planRunKey(trigger("a:b c")),
      planRunKey(trigger("a%3Ab%20c")),
      planRunKey(trigger("x".repeat(256))),
      planRunKey(trigger("\ud800 lone")),
      planRunKey({ channel: "tele gram:x", thread_id: "é", message: { text: "" } })
    ]
    for (const key of keys) expect(keyProblem(key)).toBeUndefined()
    expect(new Set(keys).size).toBe(keys.length)
    expect(keys[0]).toBe("agent:default:telegram:channel:t-1")
    expect(keyPart("a:b c")).toBe("a%3Ab%20c")
    expect(keyPart("x".repeat(256))).toMatch(/^%sha256-[0-9a-f]{64}$/)
  })
})
