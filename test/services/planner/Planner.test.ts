/**
 * The plan runner against the policy rule table (policy-check.md
 * "Evaluation rules"), with the real policy engine, the in-memory approvals
 * and the plans stored on every test database (SQLite always, PostgreSQL
 * when SVC_TEST_DATABASE_URL is set).
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Ref } from "effect"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Planner } from "../../../services/planner/Planner.ts"
import type { PlanRequest, PlanResponse } from "../../../services/planner/schema.ts"
import { testDatabases } from "../../support/databases.ts"
import { CreatedApprovals, plannerLayer } from "./support.ts"

const request = (request_id: string, tags: ReadonlyArray<string>): PlanRequest => ({
  request_id,
  trigger: { channel: "telegram", thread_id: "t-1", message: { text: "Order the usual flowers" } },
  tags
})

const CLEAN = ["pii:none", "legal:none"]

type Expected =
  | { readonly status: "success"; readonly steps: ReadonlyArray<string> }
  | {
    readonly status: "escalate"
    readonly kind: string
    readonly step: number
    readonly rules: ReadonlyArray<string>
  }
  | { readonly status: "failure"; readonly detail: string }

/** Tags → outcome, one row per rule outcome of the policy table (and their combinations). */
const TABLE: ReadonlyArray<readonly [string, ReadonlyArray<string>, Expected]> = [
  ["no tags: all three sections missing", [], {
    status: "escalate",
    kind: "spend",
    step: 0,
    rules: ["spend_limit", "pii_guardrail", "legal_compliance"]
  }],
  ["no spend tag", CLEAN, { status: "escalate", kind: "spend", step: 0, rules: ["spend_limit"] }],
  ["spend within the limit", ["spend:5000:USD", ...CLEAN], {
    status: "success",
    steps: ["Research", "Web", "Pay", "Message"]
  }],
  ["spend at the limit", ["spend:10000:USD", ...CLEAN], { status: "success", steps: ["Research", "Web", "Pay", "Message"] }],
  ["spend above the limit", ["spend:15000:USD", ...CLEAN], {
    status: "escalate",
    kind: "spend",
    step: 2,
    rules: ["spend_limit"]
  }],
  ["spend at the ceiling", ["spend:50000:USD", ...CLEAN], { status: "escalate", kind: "spend", step: 2, rules: ["spend_limit"] }],
  ["spend above the ceiling", ["spend:50001:USD", ...CLEAN], {
    status: "failure",
    detail: "spend_limit: Amount USD 500.01 exceeds hard limit USD 500.00."
  }],
  ["pii missing", ["spend:100:EUR", "legal:none"], { status: "escalate", kind: "pii", step: 0, rules: ["pii_guardrail"] }],
  ["pii allowed", ["spend:100:EUR", "pii:basic_contact", "pii:location", "pii:other", "legal:none"], {
    status: "success",
    steps: ["Research", "Web", "Pay", "Message"]
  }],
  ["pii financial", ["spend:100:EUR", "pii:financial", "legal:none"], {
    status: "escalate",
    kind: "pii",
    step: 0,
    rules: ["pii_guardrail"]
  }],
  ["pii health", ["spend:100:EUR", "pii:health", "legal:none"], { status: "escalate", kind: "pii", step: 0, rules: ["pii_guardrail"] }],
  ["pii biometric", ["spend:100:EUR", "pii:biometric", "legal:none"], {
    status: "failure",
    detail: "pii_guardrail: Detected protected PII categories: biometric."
  }],
  ["pii government_id", ["spend:100:EUR", "pii:basic_contact", "pii:government_id", "legal:none"], {
    status: "failure",
    detail: "pii_guardrail: Detected protected PII categories: basic_contact, government_id."
  }],
  ["legal missing", ["spend:100:EUR", "pii:none"], { status: "escalate", kind: "policy", step: 0, rules: ["legal_compliance"] }],
  ["legal other", ["spend:100:EUR", "pii:none", "legal:other"], { status: "success", steps: ["Research", "Web", "Pay", "Message"] }],
  ["legal requires_review", ["spend:100:EUR", "pii:none", "legal:requires_review"], {
    status: "escalate",
    kind: "policy",
    step: 0,
    rules: ["legal_compliance"]
  }],
  ["legal terms_unknown + export_controlled", ["spend:100:EUR", "pii:none", "legal:terms_unknown", "legal:export_controlled"], {
    status: "escalate",
    kind: "policy",
    step: 0,
    rules: ["legal_compliance"]
  }],
  ["legal prohibited_content", ["spend:100:EUR", "pii:none", "legal:prohibited_content"], {
    status: "failure",
    detail: "legal_compliance: Prohibited legal flags present: prohibited_content."
  }],
  ["connector granted", ["spend:100:EUR", ...CLEAN, "connector:mcp://calendar"], {
    status: "success",
    steps: ["Research", "Web", "Pay", "Message"]
  }],
  ["connector needs consent", ["spend:100:EUR", ...CLEAN, "connector:mcp://weather"], {
    status: "escalate",
    kind: "policy",
    step: 0,
    rules: ["connector_scope"]
  }],
  ["connector prohibited", ["spend:100:EUR", ...CLEAN, "connector:mcp://secrets"], {
    status: "failure",
    detail: "connector_scope: Connector scope mcp://secrets prohibited by policy."
  }],
  ["spend and pii both escalate: approval before step 0", ["spend:20000:EUR", "pii:financial", "legal:none"], {
    status: "escalate",
    kind: "spend",
    step: 0,
    rules: ["spend_limit", "pii_guardrail"]
  }],
  ["deny wins over require_approval", ["spend:60000:EUR", "pii:financial"], {
    status: "failure",
    detail: "spend_limit: Amount EUR 600.00 exceeds hard limit EUR 500.00."
  }],
  ["two denials", ["spend:60000:EUR", "pii:biometric", "legal:prohibited_content"], {
    status: "failure",
    detail: "spend_limit: Amount EUR 600.00 exceeds hard limit EUR 500.00.\n" +
      "pii_guardrail: Detected protected PII categories: biometric.\n" +
      "legal_compliance: Prohibited legal flags present: prohibited_content."
  }]
]

const check = (response: PlanResponse, expected: Expected, approvalsBefore: number, approvalsAfter: number) => {
  expect(response.status).toBe(expected.status)
  expect(response.plan_id).toMatch(/^plan-[0-9a-f]{32}$/)
  expect(response.trace_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  expect(response.created_at).toBe("1970-01-01T00:00:00.000Z")
  switch (expected.status) {
    case "success":
      if (response.status !== "success") return
      expect(response.steps.map((s) => s.type)).toEqual(expected.steps)
      expect(response.summary.synopsis).toMatch(/^Research "Order the usual flowers", /)
      expect(approvalsAfter).toBe(approvalsBefore)
      return
    case "failure":
      if (response.status !== "failure") return
      expect(response.error).toEqual({
        code: "policy_denied",
        message: "Policy denied the plan",
        detail: expected.detail,
        retryable: false
      })
      expect(approvalsAfter).toBe(approvalsBefore)
      return
    case "escalate":
      if (response.status !== "escalate") return
      expect(approvalsAfter).toBe(approvalsBefore + 1)
      expect(response.escalation.step_index).toBe(expected.step)
      expect(response.escalation.approval_id).toBe(approvalsAfter)
      expect(response.escalation.expires_at).toBe("1970-01-02T00:00:00.000Z")
      expect(response.escalation.action.type).toBe("Confirm")
      expect(response.escalation.action.args.kind).toBe(expected.kind)
      expect(response.escalation.action.args.rules).toEqual(expected.rules)
      expect(response.escalation.rationale.split("\n").map((line) => line.split(":")[0])).toEqual(expected.rules)
  }
}

for (const db of testDatabases) {
  layer(plannerLayer(db))(`Planner on ${db.name}`, (it) => {
    it.effect.each(TABLE.map(([name, tags, expected], i) => [name, tags, expected, i] as const))(
      "%s",
      ([, tags, expected, i]) =>
        Effect.gen(function*() {
          const planner = yield* Planner
          const created = yield* CreatedApprovals
          const before = (yield* Ref.get(created)).length
          const response = yield* planner.plan(request(`table-${i}`, tags))
          const approvals = yield* Ref.get(created)
          check(response, expected, before, approvals.length)
          if (response.status !== "escalate" || expected.status !== "escalate") return
          const input = approvals[approvals.length - 1]
          expect(input.kind).toBe(expected.kind)
          expect(input.plan_id).toBe(response.plan_id)
          expect(input.step_index).toBe(expected.step)
          expect(input.prompt).toBe(response.escalation.action.args.prompt)
          expect(input.prompt).toMatch(new RegExp(`^Approve the plan for request table-${i}\\? Research "`))
          const context = input.context as { policy_decision: { decision: string }; tags: unknown; request_id: string }
          expect(context.policy_decision.decision).toBe("require_approval")
          expect(context.tags).toEqual(tags)
          expect(context.request_id).toBe(`table-${i}`)
        })
    )

    it.effect("stores the plan with its request, decision and response, and an audit record", () =>
      Effect.gen(function*() {
        const planner = yield* Planner
        const response = yield* planner.plan(request("stored-1", ["spend:15000:EUR:Shop", ...CLEAN, "vip"]))
        const stored = yield* planner.find(response.plan_id)
        expect(stored?.request_id).toBe("stored-1")
        expect(stored?.status).toBe("escalate")
        expect(stored?.response_json).toEqual(response)
        expect(stored?.decision_json.decision).toBe("require_approval")
        expect(JSON.parse(stored?.request_json ?? "null")).toEqual(request("stored-1", ["spend:15000:EUR:Shop", ...CLEAN, "vip"]))
        // The stored text is canonical JSON; pinned as written before issue 21 (a repeated request compares it as text).
        expect(stored?.request_json).toBe(
          '{"request_id":"stored-1","tags":["spend:15000:EUR:Shop","pii:none","legal:none","vip"],' +
            '"trigger":{"channel":"telegram","message":{"text":"Order the usual flowers"},"thread_id":"t-1"}}'
        )
        expect(yield* planner.find("plan-unknown")).toBeUndefined()
      }))

    it.effect("answers a repeated request_id with the stored plan and no second approval", () =>
      Effect.gen(function*() {
        const planner = yield* Planner
        const created = yield* CreatedApprovals
        const first = yield* planner.plan(request("repeat-1", []))
        const count = (yield* Ref.get(created)).length
        // `tags` absent and `tags: []` are the same request once decoded.
        const again = yield* planner.plan(request("repeat-1", []))
        expect(again).toEqual(first)
        expect((yield* Ref.get(created)).length).toBe(count)
      }))

    it.effect("concurrent duplicates create one plan and one approval", () =>
      Effect.gen(function*() {
        const planner = yield* Planner
        const created = yield* CreatedApprovals
        const before = (yield* Ref.get(created)).length
        const responses = yield* Effect.all(
          Array.from({ length: 5 }, () => planner.plan(request("race-1", ["spend:20000:EUR", ...CLEAN]))),
          { concurrency: "unbounded" }
        )
        expect((yield* Ref.get(created)).length).toBe(before + 1)
        for (const r of responses) expect(r).toEqual(responses[0])
      }))

    it.effect("refuses a request_id reused for a different body (409 conflict)", () =>
      Effect.gen(function*() {
        const planner = yield* Planner
        const first = yield* planner.plan(request("reuse-1", ["spend:100:EUR", ...CLEAN]))
        const error = yield* Effect.flip(planner.plan(request("reuse-1", ["spend:200:EUR", ...CLEAN])))
        expect(error._tag).toBe("PlanConflict")
        expect(error.message).toBe(`request_id reuse-1 was already used for a different request (plan ${first.plan_id})`)
        const reordered = yield* Effect.flip(planner.plan(request("reuse-1", ["legal:none", "pii:none", "spend:100:EUR"])))
        expect(reordered._tag).toBe("PlanConflict")
      }))

    it.effect("rejects a malformed tag as invalid_request and stores nothing", () =>
      Effect.gen(function*() {
        const planner = yield* Planner
        const error = yield* Effect.flip(planner.plan(request("bad-1", ["pii:none", "pii:dna"])))
        expect(error._tag).toBe("InvalidRequest")
        expect(error.message).toMatch(/^tags\[1\]: expected pii:<category>/)
        // The id is still free: a corrected request plans normally.
        const fixed = yield* planner.plan(request("bad-1", ["pii:none"]))
        expect(fixed.status).toBe("escalate")
      }))

    it.effect("appends the policy check and the plan to the plan's audit chain, in the plan's transaction", () =>
      Effect.gen(function*() {
        const planner = yield* Planner
        const audit = yield* AuditLog
        const response = yield* planner.plan(request("audit-1", ["spend:60000:EUR", ...CLEAN]))
        const bundle = yield* audit.exportChain(response.plan_id)
        expect(bundle.chain_verification.valid).toBe(true)
        expect(bundle.events.map((e) => [e.plan_id, e.step_index, e.occurred_at])).toEqual([
          [response.plan_id, 0, response.created_at],
          [response.plan_id, 1, response.created_at]
        ])
        const [checked, created] = bundle.events.map((e) => e.action as Record<string, any>)
        expect(checked).toMatchObject({ type: "policy.checked", request_id: "audit-1", decision: { decision: "deny" } })
        expect(checked.input).toMatchObject({ spend: { amount_minor_units: 60000, currency: "EUR" } })
        expect(created.type).toBe("plan.created")
        expect(created.request.request_id).toBe("audit-1")
        expect(created.outcome).toEqual(response)
        // A repeated request answers the stored plan and appends nothing.
        yield* planner.plan(request("audit-1", ["spend:60000:EUR", ...CLEAN]))
        expect(yield* audit.events(response.plan_id)).toHaveLength(2)
      }))
  })
}
