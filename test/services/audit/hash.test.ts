/**
 * The audit hashes and redaction (services/audit/hash.ts, redact.ts) against
 * fixed vectors computed outside the gateway (`printf '%s' '<json>' | sha256sum`).
 */
import { describe, expect, it } from "@effect/vitest"
import { actionDigest, eventHash, hashInput } from "../../../services/audit/hash.ts"
import { REDACTED, redactAction } from "../../../services/audit/redact.ts"

const PLAN_CREATED_SHA = "7bdd90c4406725ae6c20c12f7a8fa2e29da99e4a7e496db17c61167effceeeaa"
const FIRST_HASH = "ec8d9c4e81e2a9705dfbfaf9d35105ca8528e6cf97a35aaedb2bc41a4a021b0b"

describe("audit hashes", () => {
  it("action_sha256 is the SHA-256 of the canonical JSON (keys sorted at every level, no whitespace)", () => {
    expect(actionDigest({ type: "plan.created" })).toBe(PLAN_CREATED_SHA)
    // printf '%s' '{"a":"é","b":[1,{"c":"x","d":null}]}' | sha256sum
    expect(actionDigest({ b: [1, { d: null, c: "x" }], a: "é" })).toBe(
      "03afbdcc1316a2cbacc3317bfb201739463ca92159d8fa25d8e2761465518d5b"
    )
    expect(actionDigest({ a: "é", b: [1, { c: "x", d: null }] })).toBe(actionDigest({ b: [1, { c: "x", d: null }], a: "é" }))
  })

  it("event_hash covers {action_sha256, occurred_at, plan_id, prev_hash, step_index} in canonical order", () => {
    const first = { plan_id: "plan-1", step_index: 0, occurred_at: "2026-01-01T00:00:00.000Z", action_sha256: PLAN_CREATED_SHA, prev_hash: null }
    expect(hashInput(first)).toBe(
      `{"action_sha256":"${PLAN_CREATED_SHA}","occurred_at":"2026-01-01T00:00:00.000Z","plan_id":"plan-1","prev_hash":null,"step_index":0}`
    )
    expect(eventHash(first)).toBe(FIRST_HASH)
    const second = {
      plan_id: "plan-1",
      step_index: 1,
      occurred_at: "2026-01-01T00:00:01.000Z",
      action_sha256: actionDigest({ type: "approval.approved", approval_id: 7 }),
      prev_hash: FIRST_HASH
    }
    expect(second.action_sha256).toBe("38989a515a163d286a23ff17a8da0d4e5b2dfcd575178265ceb9edc6195e5c8d")
    expect(eventHash(second)).toBe("eb91e6244cde90906a12c0123286d32ac0111ce48e96b65a37193d47ecdb9773")
  })

  it("each hashed field changes the hash", () => {
    const base = { plan_id: "p", step_index: 0, occurred_at: "t", action_sha256: "a", prev_hash: null }
    const variants = [
      { ...base, plan_id: "q" },
      { ...base, step_index: 1 },
      { ...base, occurred_at: "u" },
      { ...base, action_sha256: "b" },
      { ...base, prev_hash: "" }
    ]
    const hashes = new Set([base, ...variants].map(eventHash))
    expect(hashes.size).toBe(6)
  })
})

describe("audit redaction", () => {
  it("replaces credential members and token-shaped strings at any depth, keeps the rest", () => {
    const action = {
      type: "x",
      token_id: "tok-1",
      token: "svc-device.v1.abc",
      headers: { Authorization: "Bearer abc", cookie: "svc_admin_token=abc", "Set-Cookie": "a=b", accept: "json" },
      nested: [{ client_secret: "s", api_key: "k", value: "svc-node.v1.xyz", note: "Bearer xyz" }, "plain"],
      password: null
    }
    expect(redactAction(action)).toEqual({
      type: "x",
      token_id: "tok-1",
      token: REDACTED,
      headers: { Authorization: REDACTED, cookie: REDACTED, "Set-Cookie": REDACTED, accept: "json" },
      nested: [{ client_secret: REDACTED, api_key: REDACTED, value: REDACTED, note: REDACTED }, "plain"],
      password: REDACTED
    })
  })

  it("normalises to plain JSON: dates as strings, undefined members dropped", () => {
    expect(redactAction({ type: "x", at: new Date(0), gone: undefined, list: [undefined] })).toEqual({
      type: "x",
      at: "1970-01-01T00:00:00.000Z",
      list: [null]
    })
    expect(redactAction(undefined)).toBeNull()
  })
})
