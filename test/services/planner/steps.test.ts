/** Deterministic plan steps (services/planner/steps.ts; reference §6.1). */
import { describe, expect, it } from "@effect/vitest"
import { isStateChanging, type PlanRequest } from "../../../services/planner/schema.ts"
import { buildSteps } from "../../../services/planner/steps.ts"

const request: PlanRequest = {
  request_id: "req-7",
  trigger: { channel: "telegram", thread_id: "t-9", message: { text: "Order   the usual\nflowers" } },
  locale: "de-DE",
  tags: []
}

describe("buildSteps", () => {
  it("is Research, Web, Message without spend", () => {
    const plan = buildSteps(request, undefined)
    expect(plan.steps.map((s) => s.type)).toEqual(["Research", "Web", "Message"])
    expect(plan.payIndex).toBeUndefined()
    expect(plan.synopsis).toBe('Research "Order the usual flowers", carry it out on the web, reply in telegram thread t-9.')
    expect(plan.steps[0]).toEqual({
      type: "Research",
      args: {
        intent: "understand_request",
        query: "Order   the usual\nflowers",
        channel: "telegram",
        thread_id: "t-9",
        locale: "de-DE"
      }
    })
    expect(plan.steps[2]).toEqual({
      type: "Message",
      args: { channel: "telegram", thread_id: "t-9", body: plan.synopsis },
      postcondition: { status: "sent" },
      idempotency_key: "req-7:2"
    })
  })

  it("adds Pay before Message with a spend tag", () => {
    const plan = buildSteps(request, { amount_minor_units: 4500, currency: "EUR", merchant: "Flower Shop" })
    expect(plan.steps.map((s) => s.type)).toEqual(["Research", "Web", "Pay", "Message"])
    expect(plan.payIndex).toBe(2)
    expect(plan.steps[2]).toEqual({
      type: "Pay",
      args: { amount_minor_units: 4500, currency: "EUR", merchant: "Flower Shop" },
      postcondition: { status: "authorized", amount_minor_units: 4500, currency: "EUR" },
      idempotency_key: "req-7:2"
    })
    expect(plan.steps[3].idempotency_key).toBe("req-7:3")
    expect(plan.synopsis).toContain(", pay EUR 45.00 to Flower Shop, ")
  })

  it("is deterministic, and every state-changing step has a postcondition and an idempotency key", () => {
    const spend = { amount_minor_units: 1, currency: "JPY" }
    expect(buildSteps(request, spend)).toEqual(buildSteps(request, spend))
    for (const step of buildSteps(request, spend).steps) {
      expect(step.postcondition !== undefined).toBe(isStateChanging(step.type))
      expect(step.idempotency_key !== undefined).toBe(isStateChanging(step.type))
    }
  })

  it("quotes at most 60 characters of the message text", () => {
    const long = { ...request, trigger: { ...request.trigger, message: { text: "a".repeat(100) } } }
    expect(buildSteps(long, undefined).synopsis).toContain(`"${"a".repeat(59)}…"`)
  })
})
