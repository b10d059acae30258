/**
 * The approvals service on every test database (SQLite always, PostgreSQL
 * when SVC_TEST_DATABASE_URL is set): every transition and the idempotent
 * answers, expiry at the moment it is due (TestClock), cancellation, one
 * winner among concurrent resolvers, cursor pagination, "approve always",
 * and the gateway-initiated `approval.request` fan-out.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { Approvals } from "../../../services/approvals/Approvals.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { ApprovalsRepo } from "../../../services/approvals/ApprovalsRepo.ts"
import { adminPrincipal } from "../../../services/auth/principal.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { GatewayRequests } from "../../../services/ws-sessions/GatewayRequests.ts"
import { testDatabases } from "../../support/databases.ts"
import { approvalsLayer, createdOverrides, device, fakeConnection, input } from "./support.ts"

const HTTP = { kind: "http", principal: "admin" } as const

/** The action types of a plan's audit chain, which must verify. */
const chainTypes = (plan: string) =>
  Effect.gen(function*() {
    const audit = yield* AuditLog
    const events = yield* audit.events(plan)
    expect(audit.verify(events).valid).toBe(true)
    return events.map((e) => (e.action as { type: string }).type)
  })

/**
 * Lets the service's fibers run until `check` holds: polls every 5 ms of real
 * time (database I/O is real) for up to 10 s; the TestClock does not move.
 */
const settle = (check: () => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!check() && Date.now() < deadline) yield* TestClock.withLive(Effect.sleep(Duration.millis(5)))
    expect(check()).toBe(true)
  })

const suggested = {
  policy: {
    agent_id: "agent-7",
    policy_snapshot_id: "11111111-2222-4333-8444-555555555555",
    suggested_overrides: [
      { tool_id: "shell.exec", pattern: "git status*" },
      { tool_id: "shell.exec", pattern: "*", workspace_id: "ws1" },
      { tool_id: "http.get", pattern: "https://api.example.com/*" }
    ]
  }
}

for (const db of testDatabases) {
  describe(`Approvals on ${db.name}`, () => {
    const provide = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(Effect.provide(approvalsLayer(db))) as Effect.Effect<A, E>

    it.effect("creates a pending approval with its expiry and announces it to approvers only", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const admin = fakeConnection("admin", adminPrincipal)
        const approver = fakeConnection("approver", device("d1", ["operator.approvals"]))
        const reader = fakeConnection("reader", device("d2", ["operator.read"]))
        const node = fakeConnection("node", device("d3", ["operator.read", "operator.write", "operator.admin", "operator.approvals", "operator.pairing"], "node"), "node")
        for (const c of [admin, approver, reader, node]) yield* registry.add(c.handle)
        const approvals = yield* Approvals
        const approval = yield* approvals.create(input("plan-a", {
          context: { why: "spend" },
          scope: { key: "agent:a", lane: "main", run_id: "run-1", step_index: 2 }
        }))
        expect(approval).toEqual({
          id: 1,
          kind: "spend",
          status: "pending",
          plan_id: "plan-a",
          step_index: 0,
          prompt: "approve plan-a?",
          context: { why: "spend" },
          created_at: "1970-01-01T00:00:00.000Z",
          expires_at: "1970-01-01T01:00:00.000Z",
          resolution: null,
          scope: { key: "agent:a", lane: "main", run_id: "run-1", step_index: 2 }
        })
        const custom = yield* approvals.create(input("plan-b", { ttlSeconds: 90 }))
        expect(custom).toMatchObject({ id: 2, context: {}, expires_at: "1970-01-01T00:01:30.000Z" })
        expect(custom).not.toHaveProperty("scope")
        expect(admin.events("approval.requested").map((e) => e.payload.approval.id)).toEqual([1, 2])
        expect(approver.events("approval.requested")[0]).toMatchObject({ payload: { approval }, scope: { kind: "run", run_id: "run-1" } })
        expect(reader.received).toEqual([])
        expect(node.received).toEqual([])
        expect(yield* approvals.get(1)).toEqual(approval)
        expect((yield* Effect.flip(approvals.get(99)))._tag).toBe("NotFound")
      })))

    it.effect("pending → approved and pending → denied; terminal approvals never change and are not re-announced", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const watcher = fakeConnection("w", adminPrincipal)
        yield* registry.add(watcher.handle)
        const approvals = yield* Approvals
        yield* approvals.create(input("p1"))
        yield* approvals.create(input("p2"))
        yield* TestClock.adjust(Duration.seconds(5))
        const approved = yield* approvals.respond(1, { decision: "approved", reason: "fine" }, HTTP)
        expect(approved).toEqual({
          approval: expect.objectContaining({
            id: 1,
            status: "approved",
            resolution: { decision: "approved", resolved_at: "1970-01-01T00:00:05.000Z", resolved_by: HTTP, reason: "fine" }
          })
        })
        const denied = yield* approvals.respond(2, { decision: "denied" }, { kind: "ws", principal: "dev-x" })
        expect(denied.approval.status).toBe("denied")
        expect(denied.approval.resolution).toEqual({
          decision: "denied",
          resolved_at: "1970-01-01T00:00:05.000Z",
          resolved_by: { kind: "ws", principal: "dev-x" }
        })
        expect(watcher.events("approval.resolved").map((e) => e.payload.approval)).toEqual([approved.approval, denied.approval])
        // Again, either way: the unchanged approval, no event, no override.
        const again = yield* approvals.respond(1, {
          decision: "denied",
          mode: "always",
          overrides: [{ tool_id: "x", pattern: "y" }]
        }, HTTP)
        expect(again).toEqual({ approval: approved.approval })
        expect((yield* approvals.respond(2, { decision: "approved" }, HTTP)).approval).toEqual(denied.approval)
        expect(yield* approvals.cancelForPlan("p1")).toEqual([])
        expect(watcher.events("approval.resolved")).toHaveLength(2)
        expect((yield* Effect.flip(approvals.respond(42, { decision: "approved" }, HTTP)))._tag).toBe("NotFound")
      })))

    it.effect("pending → expired at the moment expires_at passes (TestClock), announced once", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const watcher = fakeConnection("w", adminPrincipal)
        yield* registry.add(watcher.handle)
        const approvals = yield* Approvals
        yield* approvals.create(input("slow", { ttlSeconds: 60 }))
        yield* TestClock.adjust(Duration.seconds(10))
        yield* approvals.create(input("fast", { ttlSeconds: 20 })) // due sooner: wakes the fiber early
        yield* TestClock.adjust(Duration.seconds(19))
        expect((yield* approvals.get(2)).status).toBe("pending")
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settle(() => watcher.events("approval.resolved").length === 1)
        const fast = yield* approvals.get(2)
        expect(fast).toMatchObject({
          status: "expired",
          resolution: { decision: "denied", resolved_at: "1970-01-01T00:00:30.000Z", resolved_by: { kind: "system" }, reason: "expired" }
        })
        expect((yield* approvals.get(1)).status).toBe("pending")
        yield* TestClock.adjust(Duration.seconds(29))
        expect((yield* approvals.get(1)).status).toBe("pending")
        yield* TestClock.adjust(Duration.seconds(1))
        yield* settle(() => watcher.events("approval.resolved").length === 2)
        expect((yield* approvals.get(1)).resolution?.resolved_at).toBe("1970-01-01T00:01:00.000Z")
        expect(yield* chainTypes("fast")).toEqual(["approval.requested", "approval.expired"])
        // Terminal: a late decision gets the expired approval, unchanged.
        expect((yield* approvals.respond(2, { decision: "approved" }, HTTP)).approval).toEqual(fast)
        yield* TestClock.adjust(Duration.hours(1))
        expect(watcher.events("approval.resolved")).toHaveLength(2)
      })))

    it.effect("the default TTL applies (3600 s here) and an approval a decision reaches after its expiry is expired", () =>
      provide(Effect.gen(function*() {
        const approvals = yield* Approvals
        const repo = yield* ApprovalsRepo
        const approval = yield* approvals.create(input("p"))
        expect(approval.expires_at).toBe("1970-01-01T01:00:00.000Z")
        // The conditional write itself refuses a decision at or after expires_at.
        const late = yield* repo.decide(approval.id, { status: "approved", at: "1970-01-01T01:00:00.000Z", by: HTTP, reason: undefined })
        expect(late).toBeUndefined()
        expect((yield* approvals.get(approval.id)).status).toBe("pending")
      })))

    it.effect("pending → cancelled for a plan or a run; others untouched; returned and announced", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const watcher = fakeConnection("w", adminPrincipal)
        yield* registry.add(watcher.handle)
        const approvals = yield* Approvals
        yield* approvals.create(input("plan-x"))
        yield* approvals.create(input("plan-x", { step_index: 1 }))
        yield* approvals.create(input("plan-y", { scope: { run_id: "run-9" } }))
        yield* approvals.create(input("plan-z", { scope: { run_id: "run-9" } }))
        yield* approvals.create(input("plan-other"))
        yield* approvals.respond(2, { decision: "approved" }, HTTP)
        const byPlan = yield* approvals.cancelForPlan("plan-x", "plan cancelled by operator")
        expect(byPlan.map((a) => [a.id, a.status, a.resolution?.reason])).toEqual([[1, "cancelled", "plan cancelled by operator"]])
        expect(byPlan[0].resolution).toMatchObject({ decision: "denied", resolved_by: { kind: "system" } })
        const byRun = yield* approvals.cancelForRun("run-9")
        expect(byRun.map((a) => [a.id, a.status, a.resolution?.reason])).toEqual([[3, "cancelled", "cancelled"], [4, "cancelled", "cancelled"]])
        expect((yield* approvals.get(2)).status).toBe("approved")
        expect((yield* approvals.get(5)).status).toBe("pending")
        expect(yield* approvals.cancelForRun("run-9")).toEqual([])
        expect(watcher.events("approval.resolved").map((e) => e.payload.approval.id)).toEqual([2, 1, 3, 4])
        expect((yield* approvals.respond(3, { decision: "approved" }, HTTP)).approval.status).toBe("cancelled")
        // Each creation and transition is in its plan's audit chain.
        expect(yield* chainTypes("plan-x")).toEqual(["approval.requested", "approval.requested", "approval.approved", "approval.cancelled"])
        expect(yield* chainTypes("plan-y")).toEqual(["approval.requested", "approval.cancelled"])
        expect(yield* chainTypes("plan-other")).toEqual(["approval.requested"])
        const cancelled = (yield* (yield* AuditLog).events("plan-x"))[3].action
        expect(cancelled).toMatchObject({ approval_id: 1, resolution: { decision: "denied", reason: "plan cancelled by operator" } })
      })))

    it.effect("concurrent resolvers: exactly one transition, every answer is the winner's approval", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const watcher = fakeConnection("w", adminPrincipal)
        yield* registry.add(watcher.handle)
        const approvals = yield* Approvals
        yield* approvals.create(input("race"))
        const answers = yield* Effect.all(
          Array.from({ length: 12 }, (_, i) =>
            approvals.respond(1, { decision: i % 2 === 0 ? "approved" : "denied", reason: `r${i}` }, { kind: i % 3 === 0 ? "http" : "ws" })),
          { concurrency: "unbounded" }
        )
        const final = yield* approvals.get(1)
        expect(final.status).not.toBe("pending")
        for (const answer of answers) expect(answer.approval).toEqual(final)
        expect(watcher.events("approval.resolved").map((e) => e.payload.approval)).toEqual([final])
        expect(yield* chainTypes("race")).toEqual(["approval.requested", `approval.${final.status}`])
      })))

    it.effect("lists by created_at with cursor pagination over several pages and filters", () =>
      provide(Effect.gen(function*() {
        const approvals = yield* Approvals
        for (let i = 0; i < 7; i++) {
          yield* approvals.create(input(`p${i}`, {
            kind: i % 2 === 0 ? "spend" : "pii",
            scope: { run_id: i < 4 ? "run-a" : "run-b", key: `k${i % 3}`, lane: i === 6 ? "side" : "main" }
          }))
          if (i === 2) yield* TestClock.adjust(Duration.seconds(1))
        }
        yield* approvals.respond(4, { decision: "denied" }, HTTP)
        const pages: Array<ReadonlyArray<number>> = []
        let cursor: string | undefined
        do {
          const page = yield* approvals.list({ limit: 2, ...(cursor !== undefined ? { cursor } : {}) })
          pages.push(page.approvals.map((a) => a.id))
          cursor = page.next_cursor
        } while (cursor !== undefined)
        expect(pages).toEqual([[1, 2], [3, 5], [6, 7]])
        expect((yield* approvals.list({})).approvals.map((a) => a.id)).toEqual([1, 2, 3, 5, 6, 7])
        expect((yield* approvals.list({ status: "denied" })).approvals.map((a) => a.id)).toEqual([4])
        expect((yield* approvals.list({ kind: ["pii"] })).approvals.map((a) => a.id)).toEqual([2, 6])
        expect((yield* approvals.list({ kind: ["pii", "spend"], run_id: "run-b" })).approvals.map((a) => a.id)).toEqual([5, 6, 7])
        expect((yield* approvals.list({ key: "k0", lane: "main" })).approvals.map((a) => a.id)).toEqual([1])
        expect((yield* approvals.list({ lane: "side" })).approvals.map((a) => a.id)).toEqual([7])
        const exact = yield* approvals.list({ limit: 6 })
        expect(exact.approvals).toHaveLength(6)
        expect(exact).not.toHaveProperty("next_cursor")
        expect((yield* approvals.listByStatus("pending")).map((a) => a.id)).toEqual([1, 2, 3, 5, 6, 7])
        for (const bad of ["nope!", "e30", Buffer.from("[\"x\",0]").toString("base64url")]) {
          const error = yield* Effect.flip(approvals.list({ cursor: bad }))
          expect(error._tag).toBe("InvalidRequest")
        }
      })))

    it.effect("approve always: checks the selection against suggested_overrides and the guardrail, then creates the overrides", () =>
      provide(Effect.gen(function*() {
        const approvals = yield* Approvals
        yield* approvals.create(input("always", { context: suggested }))
        const fails = (overrides: ReadonlyArray<{ tool_id: string; pattern: string; workspace_id?: string }> | undefined) =>
          Effect.map(Effect.flip(approvals.respond(1, { decision: "approved", mode: "always", overrides }, HTTP)), (e) => e.message)
        expect(yield* fails(undefined)).toMatch(/mode=always requires selecting one or more overrides/)
        expect(yield* fails([{ tool_id: " ", pattern: "" }])).toMatch(/requires selecting/)
        expect(yield* fails([{ tool_id: "shell.exec", pattern: "git log*" }])).toMatch(/must be selected from context\.policy\.suggested_overrides/)
        expect(yield* fails([{ tool_id: "shell.exec", pattern: "*" }])).toMatch(/suggested_overrides/) // workspace differs
        expect(yield* fails([{ tool_id: "shell.exec", pattern: "*", workspace_id: "ws1" }])).toMatch(/guardrail.*starts with '\*'/)
        expect((yield* approvals.get(1)).status).toBe("pending")
        expect(createdOverrides).toEqual([])
        const result = yield* approvals.respond(1, {
          decision: "approved",
          mode: "always",
          overrides: [
            { tool_id: "shell.exec", pattern: "git status*" },
            { tool_id: "http.get", pattern: "https://api.example.com/*" },
            { tool_id: "shell.exec", pattern: "git status*" }
          ]
        }, HTTP)
        expect(result.approval.status).toBe("approved")
        expect(result.created_overrides?.map((o) => [o.tool_id, o.pattern, o.agent_id, o.created_from_approval_id])).toEqual([
          ["shell.exec", "git status*", "agent-7", 1],
          ["http.get", "https://api.example.com/*", "agent-7", 1]
        ])
        expect(createdOverrides[0]).toMatchObject({
          created_by: HTTP,
          created_from_policy_snapshot_id: "11111111-2222-4333-8444-555555555555"
        })
      })))

    it.effect("approve always applies only when approving; once creates nothing; a failing create rolls the decision back", () =>
      provide(Effect.gen(function*() {
        const approvals = yield* Approvals
        const context = { policy: { suggested_overrides: [{ tool_id: "t", pattern: "ok*" }, { tool_id: "t", pattern: "reject*" }] } }
        for (const plan of ["a", "b", "c"]) yield* approvals.create(input(plan, { context }))
        const pick = [{ tool_id: "t", pattern: "ok*" }]
        expect(yield* approvals.respond(1, { decision: "denied", mode: "always", overrides: pick }, HTTP)).not.toHaveProperty("created_overrides")
        expect(yield* approvals.respond(2, { decision: "approved", mode: "once", overrides: pick }, HTTP)).not.toHaveProperty("created_overrides")
        expect(createdOverrides).toEqual([])
        const error = yield* Effect.flip(approvals.respond(3, {
          decision: "approved",
          mode: "always",
          overrides: [...pick, { tool_id: "t", pattern: "reject*" }]
        }, HTTP))
        expect(error.message).toMatch(/rejected by the store/)
        expect((yield* approvals.get(3)).status).toBe("pending") // the transaction rolled back
        const ok = yield* approvals.respond(3, { decision: "approved", mode: "always", overrides: pick }, HTTP)
        expect(ok.created_overrides).toHaveLength(1)
        expect(ok.created_overrides?.[0].agent_id).toBe("default")
      })))

    it.effect("approval.request: asks every eligible client; the first valid answer decides, later ones change nothing", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const a = fakeConnection("a", device("dev-a", ["operator.approvals"]))
        const b = fakeConnection("b", adminPrincipal)
        const reader = fakeConnection("r", device("dev-r", ["operator.read"]))
        const node = fakeConnection("n", adminPrincipal, "node")
        for (const c of [a, b, reader, node]) yield* registry.add(c.handle)
        const approvals = yield* Approvals
        const approval = yield* approvals.create(input("ask", { context: { n: 1 }, ttlSeconds: 600 }))
        const asked = (c: ReturnType<typeof fakeConnection>) => c.received.find((m) => m.type === "approval.request")
        yield* settle(() => asked(a) !== undefined && asked(b) !== undefined)
        expect(asked(a)).toEqual({
          request_id: "approval-1",
          type: "approval.request",
          payload: {
            approval_id: 1,
            plan_id: "ask",
            step_index: 0,
            prompt: "approve ask?",
            context: { n: 1 },
            expires_at: approval.expires_at
          }
        })
        expect(asked(reader)).toBeUndefined()
        expect(asked(node)).toBeUndefined()
        const gatewayRequests = yield* GatewayRequests
        // An invalid answer: an error event, nothing decided.
        gatewayRequests.resolve("a", { request_id: "approval-1", type: "approval.request", ok: true, result: { approved: "yes" } })
        yield* settle(() => a.events("error").length === 1)
        expect(a.events("error")[0].payload).toMatchObject({ code: "invalid_approval_decision" })
        expect((yield* approvals.get(1)).status).toBe("pending")
        // b decides; a's (already answered) ask is gone; b's answer wins.
        gatewayRequests.resolve("b", { request_id: "approval-1", type: "approval.request", ok: true, result: { approved: false, reason: "no" } })
        yield* settle(() => b.events("approval.resolved").length === 1)
        const decided = yield* approvals.get(1)
        expect(decided).toMatchObject({ status: "denied", resolution: { decision: "denied", reason: "no", resolved_by: { kind: "ws", principal: "admin" } } })
        expect(gatewayRequests.pendingCount()).toBe(0)
      })))

    it.effect("approval.request: after another path decides, open asks are dropped after the grace period; late answers lose", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const a = fakeConnection("a", device("dev-a", ["operator.approvals"]))
        const b = fakeConnection("b", device("dev-b", ["operator.approvals"]))
        for (const c of [a, b]) yield* registry.add(c.handle)
        const approvals = yield* Approvals
        const gatewayRequests = yield* GatewayRequests
        yield* approvals.create(input("grace"))
        yield* settle(() => gatewayRequests.pendingCount() === 2)
        const decided = yield* approvals.respond(1, { decision: "approved" }, HTTP)
        // Within the grace period a late answer still lands on the write, and loses.
        gatewayRequests.resolve("a", { request_id: "approval-1", type: "approval.request", ok: true, result: { approved: false } })
        yield* settle(() => gatewayRequests.pendingCount() === 1)
        expect(yield* approvals.get(1)).toEqual(decided.approval)
        yield* TestClock.adjust(Duration.seconds(30))
        yield* settle(() => gatewayRequests.pendingCount() === 0)
        expect(b.events("approval.resolved")).toHaveLength(1)
        expect(a.events("error")).toEqual([])
      })))

    it.effect("approval.request: no eligible client, a refusal, or a disconnect changes nothing", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const approvals = yield* Approvals
        const gatewayRequests = yield* GatewayRequests
        yield* approvals.create(input("nobody"))
        const a = fakeConnection("a", adminPrincipal)
        const b = fakeConnection("b", adminPrincipal)
        for (const c of [a, b]) yield* registry.add(c.handle)
        yield* approvals.create(input("two"))
        yield* settle(() => gatewayRequests.pendingCount() === 2)
        expect(a.received.filter((m) => m.type === "approval.request").map((m) => m.request_id)).toEqual(["approval-2"])
        gatewayRequests.resolve("a", { request_id: "approval-2", type: "approval.request", ok: false, error: { code: "declined", message: "later" } })
        yield* registry.remove("b")
        yield* settle(() => gatewayRequests.pendingCount() === 0)
        expect((yield* approvals.get(1)).status).toBe("pending")
        expect((yield* approvals.get(2)).status).toBe("pending")
      })))
  })
}
