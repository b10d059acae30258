/**
 * The MCP tools' service on every test database (SQLite always, PostgreSQL
 * when SVC_TEST_DATABASE_URL is set), on the TestClock: request_approval
 * answers from the approvals service's resolution event (approved, denied)
 * and from its expiry at `timeout_ms` (expired, at that moment, not
 * before); audit_append refuses gateway chains and unknown plans.
 * test/http/mcp.test.ts covers the same through a real gateway and McpClient.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Approvals } from "../../../services/approvals/Approvals.ts"
import { Memory } from "../../../services/memory/Memory.ts"
import { MCP_CHAIN, McpGateway } from "../../../services/mcp/McpGateway.ts"
import { Nodes } from "../../../services/nodes/Nodes.ts"
import { PlansRepo } from "../../../services/planner/PlansRepo.ts"
import { PolicyService } from "../../../services/policy/PolicyService.ts"
import { Workflow } from "../../../services/workflow/Workflow.ts"
import { GatewayConfigLive } from "../../../src/app/gateway.ts"
import { testDatabases } from "../../support/databases.ts"
import { testSettings } from "../../support/gateway.ts"
import { approvalsLayer } from "../approvals/support.ts"

const ADMIN = { kind: "admin" } as const

/** Lets the service's fibers run until `check` holds (real time for database I/O; the TestClock does not move). */
const settle = <A, R>(check: Effect.Effect<A | undefined, never, R>) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline) {
      const value = yield* check
      if (value !== undefined) return value
      yield* TestClock.withLive(Effect.sleep(Duration.millis(5)))
    }
    return yield* Effect.die(new Error("condition never held"))
  })

/** The pending MCP approval asking `prompt`, once it exists. */
const pending = (prompt: string) =>
  settle(Effect.map(Effect.flatMap(Approvals, (a) => a.listByStatus("pending")), (all) =>
    all.find((a) => a.kind === "mcp_request" && a.prompt === prompt)))

for (const db of testDatabases) {
  describe(`McpGateway on ${db.name}`, () => {
    const provide = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(
        Effect.provide(McpGateway.layerNoDeps.pipe(
          // Memory reads its semantic-search setting (off) from the gateway's settings.
          Layer.provideMerge(Layer.mergeAll(PolicyService.layer, Memory.layer, PlansRepo.layer).pipe(
            Layer.provideMerge(GatewayConfigLive(testSettings()))
          )),
          // The read-only listings are pass-throughs (test/http/mcp.test.ts compares them with the HTTP routes).
          Layer.provideMerge(Layer.mock(Workflow)({})),
          Layer.provideMerge(Layer.mock(Nodes)({ list: () => Effect.succeed({ status: "ok" as const, nodes: [] }) })),
          Layer.provideMerge(approvalsLayer(db))
        ))
      ) as Effect.Effect<A, E>

    it.effect("request_approval answers the operator's decision as soon as it is made", () =>
      provide(Effect.gen(function*() {
        const mcp = yield* McpGateway
        const approvals = yield* Approvals
        for (const decision of ["approved", "denied"] as const) {
          const prompt = `ship it (${decision})?`
          const waiting = yield* Effect.forkChild(mcp.requestApproval({ prompt, context: { pr: 7 }, timeout_ms: 60_000 }, ADMIN))
          const approval = yield* pending(prompt)
          expect(approval).toMatchObject({
            plan_id: MCP_CHAIN,
            context: { source: "mcp", requested_by: ADMIN, request: { pr: 7 } }
          })
          yield* approvals.respond(approval.id, { decision }, { kind: "http", principal: "admin" })
          expect(yield* Fiber.join(waiting)).toEqual({ approval_id: approval.id, decision })
        }
      })))

    it.effect("request_approval answers expired when timeout_ms passes, not a millisecond before", () =>
      provide(Effect.gen(function*() {
        const mcp = yield* McpGateway
        const approvals = yield* Approvals
        const waiting = yield* Effect.forkChild(mcp.requestApproval({ prompt: "anyone?", timeout_ms: 5_000 }, ADMIN))
        const approval = yield* pending("anyone?")
        yield* TestClock.adjust(Duration.millis(4_999))
        expect((yield* approvals.get(approval.id)).status).toBe("pending")
        expect(waiting.pollUnsafe()).toBeUndefined()
        yield* TestClock.adjust(Duration.millis(1))
        expect(yield* Fiber.join(waiting)).toEqual({ approval_id: approval.id, decision: "expired" })
        expect((yield* approvals.get(approval.id)).status).toBe("expired")
      })))

    it.effect("audit_append refuses gateway chains and the gateway's own action types (invalid_request) and plans the planner does not know (not_found)", () =>
      provide(Effect.gen(function*() {
        const mcp = yield* McpGateway
        const chain = yield* Effect.flip(mcp.auditAppend({ plan_id: "gateway.auth", action: { type: "x" } }, ADMIN))
        expect(chain._tag).toBe("InvalidRequest")
        const forged = yield* Effect.flip(mcp.auditAppend({ plan_id: "plan-nope", action: { type: "approval.approved" } }, ADMIN))
        expect(forged).toMatchObject({ _tag: "InvalidRequest", message: "action.type: approval.* types are the gateway's own decisions" })
        const unknown = yield* Effect.flip(mcp.auditAppend({ plan_id: "plan-nope", action: { type: "x" } }, ADMIN))
        expect(unknown).toMatchObject({ _tag: "NotFound", message: "plan plan-nope not found" })
      })))

    it.effect("the read-only listings: approvals pending by default, runs not found while the engine API is off, nodes", () =>
      provide(Effect.gen(function*() {
        const mcp = yield* McpGateway
        const waiting = yield* Effect.forkChild(mcp.requestApproval({ prompt: "listed?", timeout_ms: 60_000 }, ADMIN))
        const approval = yield* pending("listed?")
        expect((yield* mcp.listApprovals(undefined)).approvals.map((a) => a.id)).toContain(approval.id)
        expect((yield* mcp.listApprovals("approved")).approvals.map((a) => a.id)).not.toContain(approval.id)
        expect(yield* Effect.flip(mcp.listRuns({}))).toMatchObject({ _tag: "NotFound", message: expect.stringContaining("SVC_ENGINE_API_ENABLED") })
        expect(yield* mcp.listNodes()).toEqual({ status: "ok", nodes: [] })
        yield* Fiber.interrupt(waiting)
      })))
  })
}
