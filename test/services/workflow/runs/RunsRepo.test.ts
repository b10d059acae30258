/**
 * The workflow tables on every test database: a run is enqueued in one
 * transaction, each transition is one conditional write that exactly one of
 * two racing writers wins, lanes serve runs in arrival order, listings page
 * without repeats, and resume tokens are single use and revocable.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { migrationsTable } from "../../../../layers/storage/migrations.ts"
import { type NewRun, RunsRepo } from "../../../../services/workflow/runs/RunsRepo.ts"
import type { WorkflowStep } from "../../../../services/workflow/runs/schema.ts"
import { testDatabases } from "../../../support/databases.ts"

const step = (over: Partial<WorkflowStep> = {}): WorkflowStep => ({
  type: "Http",
  args: { url: "http://127.0.0.1:1/x" },
  max_attempts: 3,
  timeout_ms: 60000,
  ...over
})

const t = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()

const newRun = (n: number, over: Partial<NewRun> = {}): NewRun => ({
  job_id: `job-${n}`,
  run_id: `run-${n}`,
  key: "agent:a:main",
  lane: "main",
  plan_id: `plan-${n}`,
  request_id: `req-${n}`,
  steps: [step({ idempotency_key: "k1" }), step({ type: "Llm", args: {} })],
  created_at: t(n),
  ...over
})

for (const db of testDatabases) {
  describe(`RunsRepo on ${db.name}`, () => {
    const provide = Effect.provide(RunsRepo.layer.pipe(Layer.provideMerge(db.make())))

    it.effect("migrates once and enqueues job, run and steps together", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* Effect.provide(Effect.asVoid(RunsRepo), Layer.fresh(RunsRepo.layer))
        const applied = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM ${sql(migrationsTable("workflow_runs"))}`
        expect(Number(applied[0]!.n)).toBe(2)

        const repo = yield* RunsRepo
        const created = yield* repo.createRun(newRun(1, { budgets: { max_usd_micros: 5 }, policy_snapshot_id: "snap-1" }))
        expect(created.job).toMatchObject({ job_id: "job-1", status: "queued", latest_run_id: "run-1", trigger_kind: "api" })
        expect(created.job.trigger).toEqual({ plan_id: "plan-1", request_id: "req-1" })
        expect(created.run).toEqual({
          run_id: "run-1",
          job_id: "job-1",
          key: "agent:a:main",
          lane: "main",
          status: "queued",
          attempt: 1,
          plan_id: "plan-1",
          request_id: "req-1",
          steps_count: 2,
          created_at: t(1),
          started_at: null,
          finished_at: null,
          policy_snapshot_id: "snap-1",
          budgets: { max_usd_micros: 5 }
        })
        expect(created.steps.map((s) => [s.step_index, s.status, s.action.type, s.action.idempotency_key])).toEqual([
          [0, "queued", "Http", "k1"],
          [1, "queued", "Llm", undefined]
        ])

        // A failing enqueue writes nothing: the same run id again breaks its uniqueness after the job row.
        const dup = yield* Effect.exit(repo.createRun(newRun(1, { job_id: "job-dup" })))
        expect(Exit.isFailure(dup)).toBe(true)
        expect(yield* repo.getJob("job-dup")).toBeUndefined()

        const detail = yield* repo.getRun("run-1")
        expect(detail?.run).toEqual(created.run)
        expect(detail?.steps.map((s) => s.attempts)).toEqual([[], []])
        expect(yield* repo.getRun("nope")).toBeUndefined()
      }).pipe(provide))

    it.effect("walks a run through its machine with conditional writes", () =>
      Effect.gen(function*() {
        const repo = yield* RunsRepo
        const { run, steps } = yield* repo.createRun(newRun(1))
        const s0 = steps[0]!

        const started = yield* repo.transition("run", run.run_id, ["queued"], "running", { at: t(2) })
        expect(started).toMatchObject({ status: "running", started_at: t(2), finished_at: null })
        expect(yield* repo.transition("run", run.run_id, ["queued"], "running", { at: t(3) })).toBeUndefined()
        expect(yield* repo.transition("job", run.job_id, ["queued"], "running", { at: t(2) })).toMatchObject({ status: "running" })

        expect(yield* repo.transition("step", s0.step_id, ["queued"], "running", { at: t(2) })).toMatchObject({ status: "running" })
        const a1 = yield* repo.startAttempt({ step_id: s0.step_id, run_id: run.run_id, attempt: 1, started_at: t(2) })
        expect(a1).toMatchObject({ status: "running", attempt: 1, artifacts: [], policy_applied_override_ids: [], result: null })
        const dupAttempt = yield* Effect.exit(repo.startAttempt({ step_id: s0.step_id, run_id: run.run_id, attempt: 1, started_at: t(2) }))
        expect(Exit.isFailure(dupAttempt)).toBe(true)
        const failed = yield* repo.transition("attempt", a1.attempt_id, ["running"], "timed_out", {
          at: t(3),
          error: { code: "timeout", message: "took too long" },
          cost: { duration_ms: 1000 }
        })
        expect(failed).toMatchObject({ status: "timed_out", finished_at: t(3), error: { code: "timeout", message: "took too long" }, cost: { duration_ms: 1000 } })
        expect(yield* repo.transition("step", s0.step_id, ["running"], "queued", { at: t(3) })).toMatchObject({ status: "queued" })
        yield* repo.transition("step", s0.step_id, ["queued"], "running", { at: t(4) })
        const a2 = yield* repo.startAttempt({ step_id: s0.step_id, run_id: run.run_id, attempt: 2, started_at: t(4), policy_decision: { decision: "allow" } })
        yield* repo.transition("attempt", a2.attempt_id, ["running"], "succeeded", { at: t(5), result: { status: 200 }, artifacts: ["a"] })
        yield* repo.transition("step", s0.step_id, ["running"], "succeeded", { at: t(5) })

        const paused = yield* repo.transition("run", run.run_id, ["running"], "paused", { at: t(6), paused_reason: "policy", paused_detail: "tool.http.fetch" })
        expect(paused).toMatchObject({ status: "paused", paused_reason: "policy", paused_detail: "tool.http.fetch" })
        const resumed = yield* repo.transition("run", run.run_id, ["paused"], "queued", { at: t(7) })
        expect(resumed?.paused_reason).toBeUndefined()
        yield* repo.transition("run", run.run_id, ["queued"], "running", { at: t(8) })
        const done = yield* repo.transition("run", run.run_id, ["running"], "succeeded", { at: t(9) })
        expect(done).toMatchObject({ status: "succeeded", started_at: t(2), finished_at: t(9) })
        expect(yield* repo.transition("run", run.run_id, ["queued", "running", "paused"], "cancelled", { at: t(10) })).toBeUndefined()

        const detail = yield* repo.getRun(run.run_id)
        expect(detail?.steps[0]!.attempts.map((a) => [a.attempt, a.status, a.result])).toEqual([[1, "timed_out", null], [2, "succeeded", { status: 200 }]])
        expect(detail?.steps[0]!.attempts[1]!.policy_decision).toEqual({ decision: "allow" })

        // An edge the machine does not have is a defect, not a write.
        const illegal = yield* Effect.exit(repo.transition("run", run.run_id, ["succeeded"], "running", { at: t(11) }))
        expect(Exit.hasDies(illegal)).toBe(true)
      }).pipe(provide))

    it.effect("two racing transitions: exactly one wins", () =>
      Effect.gen(function*() {
        const repo = yield* RunsRepo
        for (let i = 1; i <= 5; i++) {
          const { run } = yield* repo.createRun(newRun(i, { key: `agent:a:race${i}:main` }))
          const results = yield* Effect.all([
            repo.transition("run", run.run_id, ["queued"], "running", { at: t(20) }),
            repo.transition("run", run.run_id, ["queued"], "cancelled", { at: t(20) })
          ], { concurrency: "unbounded" })
          expect(results.filter((r) => r !== undefined)).toHaveLength(1)
        }
      }).pipe(provide))

    it.effect("serves a lane in arrival order, one running or paused run at a time", () =>
      Effect.gen(function*() {
        const repo = yield* RunsRepo
        // Same created_at: arrival order still decides.
        for (const n of [1, 2, 3]) yield* repo.createRun(newRun(n, { created_at: t(0) }))
        yield* repo.createRun(newRun(4, { lane: "cron" }))
        expect((yield* repo.nextQueuedInLane("agent:a:main", "main"))?.run_id).toBe("run-1")
        yield* repo.transition("run", "run-1", ["queued"], "running", { at: t(1) })
        expect(yield* repo.nextQueuedInLane("agent:a:main", "main")).toBeUndefined()
        expect((yield* repo.laneHolder("agent:a:main", "main"))?.run_id).toBe("run-1")
        // The database refuses a second active run in the lane.
        expect(yield* repo.transition("run", "run-2", ["queued"], "running", { at: t(1) })).toBeUndefined()
        expect((yield* repo.nextQueuedInLane("agent:a:main", "cron"))?.run_id).toBe("run-4")

        yield* repo.transition("run", "run-1", ["running"], "paused", { at: t(2), paused_reason: "approval" })
        expect(yield* repo.nextQueuedInLane("agent:a:main", "main")).toBeUndefined()
        yield* repo.transition("run", "run-1", ["paused"], "queued", { at: t(3) })
        expect((yield* repo.nextQueuedInLane("agent:a:main", "main"))?.run_id).toBe("run-1")
        yield* repo.transition("run", "run-1", ["queued"], "running", { at: t(4) })
        yield* repo.transition("run", "run-1", ["running"], "failed", { at: t(5) })
        expect((yield* repo.nextQueuedInLane("agent:a:main", "main"))?.run_id).toBe("run-2")
        expect((yield* repo.unfinishedRuns).map((r) => r.run_id)).toEqual(["run-2", "run-3", "run-4"])
      }).pipe(provide))

    it.effect("lists runs newest first over several pages", () =>
      Effect.gen(function*() {
        const repo = yield* RunsRepo
        // Seven runs, two pairs sharing a created_at.
        const times = [1, 2, 2, 3, 4, 4, 5]
        for (let i = 0; i < times.length; i++) {
          yield* repo.createRun(newRun(i + 1, { created_at: t(times[i]!), key: i % 2 === 0 ? "cron:even" : "cron:odd", lane: "cron" }))
        }
        yield* repo.transition("run", "run-7", ["queued"], "cancelled", { at: t(9) })
        const seen: Array<string> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const page = yield* repo.listRuns({ limit: 3, ...(cursor !== undefined ? { cursor } : {}) })
          seen.push(...page.runs.map((r) => r.run_id))
          cursor = page.next_cursor
          pages++
        } while (cursor !== undefined)
        expect(pages).toBe(3)
        expect(seen).toEqual(["run-7", "run-6", "run-5", "run-4", "run-3", "run-2", "run-1"])

        const even = yield* repo.listRuns({ key: "cron:even", status: "queued", limit: 10 })
        expect(even.runs.map((r) => r.run_id)).toEqual(["run-5", "run-3", "run-1"])
        expect(even.next_cursor).toBeUndefined()
        const bad = yield* Effect.exit(repo.listRuns({ cursor: "not*a*cursor" }))
        expect(Exit.isFailure(bad) && String(bad.cause)).toContain("InvalidRunCursor")
      }).pipe(provide))

    it.effect("resume tokens are single use, expire and are revocable", () =>
      Effect.gen(function*() {
        const repo = yield* RunsRepo
        const token = (digest: string, over: Partial<{ run_id: string; approval_id: number | null; expires_at: string | null }> = {}) =>
          repo.issueToken({ digest, run_id: "run-1", step_index: 0, approval_id: 1, pause_name: "confirm/0", created_at: t(0), expires_at: null, ...over })
        yield* token("d1")
        const raced = yield* Effect.all([repo.consumeToken("d1", t(1)), repo.consumeToken("d1", t(1))], { concurrency: "unbounded" })
        expect(raced.filter((r) => r !== undefined)).toHaveLength(1)
        expect(raced.find((r) => r !== undefined)).toMatchObject({ digest: "d1", run_id: "run-1", used_at: t(1), revoked_at: null })
        expect(yield* repo.consumeToken("d1", t(2))).toBeUndefined()
        expect(yield* repo.consumeToken("unknown", t(2))).toBeUndefined()

        yield* token("d2", { expires_at: t(5) })
        expect(yield* repo.consumeToken("d2", t(5))).toBeUndefined()

        yield* token("d3")
        yield* token("d4", { run_id: "run-2", approval_id: 7 })
        expect((yield* repo.revokeTokensForRun("run-1", t(3))).map((r) => r.digest).sort()).toEqual(["d2", "d3"])
        expect(yield* repo.consumeToken("d3", t(4))).toBeUndefined()
        expect((yield* repo.revokeTokensForApproval(7, t(3))).map((r) => r.digest)).toEqual(["d4"])
        expect(yield* repo.consumeToken("d4", t(4))).toBeUndefined()
        expect(yield* repo.revokeTokensForRun("run-1", t(4))).toEqual([])

        const sql = yield* SqlClient.SqlClient
        const columns = Object.keys((yield* sql`SELECT * FROM workflow_resume_tokens`)[0]!)
        expect(columns).not.toContain("token")
      }).pipe(provide))
  })
}
