/** The plan contract: what decodes, the 400 messages, and the ActionPrimitive defaults. */
import { describe, expect, it } from "@effect/vitest"
import { Result, Schema } from "effect"
import {
  ActionPrimitive,
  CAPABILITY_BY_KIND,
  isStateChanging,
  PlanRequest,
  PlanResponse
} from "../../../services/planner/schema.ts"
import { makeDecoder } from "../../../services/shared/decode.ts"

const decode = makeDecoder(PlanRequest)
const trigger = { channel: "telegram", thread_id: "t-1", message: { text: "hi" } }

describe("PlanRequest", () => {
  it("defaults tags to [] and ignores unknown keys", () => {
    const decoded = decode({ request_id: "r", trigger: { ...trigger, extra: 1, message: { text: "hi", id: 9 } }, x: 1 })
    expect(Result.getOrThrow(decoded)).toEqual({ request_id: "r", trigger, tags: [] })
  })

  it.each([
    [{ trigger }, /^request_id: missing required field$/],
    [{ request_id: "", trigger }, /^request_id: expected a non-empty string, got ""$/],
    [{ request_id: "   ", trigger }, /^request_id: must not be empty$/],
    [{ request_id: "x".repeat(129), trigger }, /^request_id: expected a non-empty string of at most 128 characters/],
    [{ request_id: "r" }, /^trigger: missing required field$/],
    [{ request_id: "r", trigger: { ...trigger, message: {} } }, /^trigger\.message\.text: missing required field$/],
    [{ request_id: "r", trigger: { ...trigger, channel: "" } }, /^trigger\.channel: expected a non-empty string, got ""$/],
    [{ request_id: "r", trigger, tags: "spend:1:EUR" }, /^tags: expected an array of at most 64 tags, got "spend:1:EUR"$/],
    [{ request_id: "r", trigger, tags: [""] }, /^tags\[0\]: expected a non-empty string, got ""$/],
    [{ request_id: "r", trigger, tags: Array.from({ length: 65 }, (_, i) => `t${i}`) }, /^tags: expected an array of at most 64 tags, got an array$/],
    [{ request_id: "r", trigger, locale: 5 }, /^locale: expected a string of at most 64 characters, got 5$/]
  ])("%j is invalid", (body, message) => {
    const result = decode(body)
    expect(Result.isFailure(result) ? result.failure : "accepted").toMatch(message)
  })
})

describe("ActionPrimitive", () => {
  it("defaults args to {} and keeps postcondition and idempotency_key", () => {
    const decodeStep = Schema.decodeUnknownSync(ActionPrimitive)
    expect(decodeStep({ type: "Research" })).toEqual({ type: "Research", args: {} })
    expect(decodeStep({ type: "Pay", args: { a: 1 }, postcondition: { s: 1 }, idempotency_key: "k" })).toEqual({
      type: "Pay",
      args: { a: 1 },
      postcondition: { s: 1 },
      idempotency_key: "k"
    })
    expect(() => decodeStep({ type: "Teleport" })).toThrow()
  })

  it("knows the state-changing kinds and their capabilities", () => {
    expect(["Research", "Decide", "Llm", "Confirm"].filter((k) => isStateChanging(k as never))).toEqual([])
    expect(isStateChanging("Pay")).toBe(true)
    expect(CAPABILITY_BY_KIND).toEqual({ Web: "playwright", Android: "android", Desktop: "desktop", CLI: "cli", Http: "http" })
  })
})

describe("PlanResponse", () => {
  it("round-trips each outcome through JSON", () => {
    const base = { plan_id: "plan-1", request_id: "r", created_at: "t", trace_id: "u" }
    const codec = Schema.fromJsonString(PlanResponse)
    for (
      const response of [
        { ...base, status: "success", steps: [{ type: "Message", args: {} }], summary: { synopsis: "s" } },
        {
          ...base,
          status: "escalate",
          escalation: {
            step_index: 2,
            action: { type: "Confirm", args: { prompt: "p" } },
            rationale: "r",
            expires_at: null,
            approval_id: 3
          }
        },
        { ...base, status: "failure", error: { code: "policy_denied", message: "m", retryable: false } }
      ] as const
    ) {
      const text = Schema.encodeSync(codec)(response)
      expect(Schema.decodeUnknownSync(codec)(text)).toEqual(response)
    }
  })
})
