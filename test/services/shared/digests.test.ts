/**
 * Digests of fixed inputs, pinned to the values the gateway computed before
 * canonical JSON and SHA-256 moved to services/shared/ (issue 21 §5): an
 * audit action and event, a plan request's stored text, a run key part, a
 * device token digest. Other pinned values live next to their subsystem:
 * test/services/audit/hash.test.ts, the effective bundle's sha256 in
 * test/services/policy-bundle/PolicyBundle.test.ts, a plan's stored
 * `request_json` in test/services/planner/Planner.test.ts, `config_sha256`
 * in test/http/routing.test.ts, the webhook vectors in
 * test/services/watchers/webhook/vectors.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { tokenDigest } from "../../../services/auth/tokenCrypto.ts"
import { actionDigest, eventHash } from "../../../services/audit/hash.ts"
import { redactAction } from "../../../services/audit/redact.ts"
import { keyPart } from "../../../services/workflow/planExecution.ts"

const REQUEST = {
  request_id: "req-42",
  trigger: { channel: "telegram", thread_id: "t-1", message: { text: "Order the usual flowers €" } },
  tags: ["spend:4500:EUR:Flower_Shop", "pii:basic_contact", "legal:none"],
  locale: "de"
}

describe("digests pinned before issue 21", () => {
  it("audit: a plan.created action with its request and a decimal number, and its event", () => {
    const action = redactAction({ type: "plan.created", request: REQUEST, outcome: { status: "success", n: 1.5 } })
    const action_sha256 = actionDigest(action)
    expect(action_sha256).toBe("203202a1d54791444a90812cfc368951a82e48d158a76c764d119578a2e2b84a")
    expect(eventHash({ plan_id: "plan-9", step_index: 3, occurred_at: "2026-02-03T04:05:06.789Z", action_sha256, prev_hash: "ab".repeat(32) }))
      .toBe("34ec0648c3b7a847c822491028b5b29bd913e1bd74568449a323446f3fed8235")
  })

  it("a run key part too long to percent-encode, and one that is not valid UTF-16", () => {
    expect(keyPart("x".repeat(300))).toBe("%sha256-0d4e2ca9e9cbced7a7a5380eb29e1a3783b9b6d0db72de36a1051038e1c1fbc7")
    expect(keyPart("\ud800abc")).toBe("%sha256-c41182fc292f252917450ea9755d705d931b4503b5aa210aee0caa714bc7bb71")
  })

  it("a device token's stored digest", () => {
    expect(tokenDigest("svc-device.v1.abc")).toBe("1990abf0a7ad420ee09050f33140cfbe9ea01e2e7cd86617270cd577713c8cd0")
  })
})
