/**
 * POST /plan end to end on a real gateway (gateway-api.md "Plan runner";
 * docs/planner.md): the three outcomes, the stored plan for a repeated
 * request_id, 409 for a reused one, 400 for malformed tags, and the scope.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { postgres } from "../support/databases.ts"
import { postJson, readJson, startGateway, type TestGateway } from "../support/gateway.ts"

let gw: TestGateway
beforeAll(async () => {
  gw = await startGateway()
})
afterAll(() => gw.close())

const trigger = { channel: "telegram", thread_id: "t-1", message: { text: "Order the usual flowers" } }
const plan = (body: unknown, token = gw.adminToken) => postJson(gw, "/plan", body, token)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("POST /plan", () => {
  it("plans the deterministic steps when every rule allows", async () => {
    const res = await plan({ request_id: "http-ok", trigger, tags: ["spend:4500:eur:Flower_Shop", "pii:basic_contact", "legal:none"] })
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(body.status).toBe("success")
    expect(body.request_id).toBe("http-ok")
    expect(body.plan_id).toMatch(/^plan-[0-9a-f]{32}$/)
    expect(body.trace_id).toMatch(UUID)
    expect(Number.isNaN(Date.parse(body.created_at))).toBe(false)
    expect(body.steps.map((s: { type: string }) => s.type)).toEqual(["Research", "Web", "Pay", "Message"])
    expect(body.steps[2].args).toEqual({ amount_minor_units: 4500, currency: "EUR", merchant: "Flower Shop" })
    expect(body.summary.synopsis).toBe(
      'Research "Order the usual flowers", carry it out on the web, pay EUR 45.00 to Flower Shop, reply in telegram thread t-1.'
    )
  })

  it("escalates a plan without tags, creating one pending approval, and answers a repeat with the same plan", async () => {
    const body = { request_id: "http-escalate", trigger }
    const first = await readJson(await plan(body))
    expect(first.status).toBe("escalate")
    expect(first.escalation.step_index).toBe(0)
    expect(first.escalation.action.type).toBe("Confirm")
    expect(first.escalation.action.args.kind).toBe("spend")
    expect(first.escalation.rationale.split("\n")).toEqual([
      "spend_limit: Spend context missing; escalate for confirmation.",
      "pii_guardrail: PII context missing; escalate to request confirmation.",
      "legal_compliance: Legal context missing; escalate for review."
    ])
    expect(Number.isInteger(first.escalation.approval_id)).toBe(true)
    expect(Number.isNaN(Date.parse(first.escalation.expires_at))).toBe(false)
    const again = await plan({ ...body, tags: [] })
    expect(again.status).toBe(200)
    expect(await readJson(again)).toEqual(first)
  })

  it("escalates an over-limit spend at its Pay step", async () => {
    const body = await readJson(await plan({ request_id: "http-spend", trigger, tags: ["spend:15000:USD", "pii:none", "legal:none"] }))
    expect(body.status).toBe("escalate")
    expect(body.escalation.step_index).toBe(2)
    expect(body.escalation.rationale).toBe("spend_limit: Amount USD 150.00 exceeds user limit USD 100.00.")
  })

  it("fails a plan the policy denies, with 200 and policy_denied", async () => {
    const res = await plan({ request_id: "http-deny", trigger, tags: ["spend:100:EUR", "pii:biometric", "legal:none"] })
    expect(res.status).toBe(200)
    const body = await readJson(res)
    expect(body.status).toBe("failure")
    expect(body.error).toEqual({
      code: "policy_denied",
      message: "Policy denied the plan",
      detail: "pii_guardrail: Detected protected PII categories: biometric.",
      retryable: false
    })
  })

  it("answers 409 conflict when a request_id is reused for a different body", async () => {
    await plan({ request_id: "http-reuse", trigger, tags: ["spend:100:EUR", "pii:none", "legal:none"] })
    const res = await plan({ request_id: "http-reuse", trigger, tags: ["spend:999:EUR", "pii:none", "legal:none"] })
    expect(res.status).toBe(409)
    const body = await readJson(res)
    expect(body.error).toBe("conflict")
    expect(body.message).toMatch(/^request_id http-reuse was already used for a different request \(plan plan-[0-9a-f]{32}\)$/)
  })

  it.each([
    [{ request_id: "x", trigger, tags: ["spend:ten:EUR"] }, /^tags\[0\]: expected spend:<amount_minor_units>:<CUR>\[:<merchant>\], got "spend:ten:EUR"$/],
    [{ request_id: "x", trigger, tags: ["pii:dna"] }, /^tags\[0\]: expected pii:<category> with category one of none, /],
    [{ request_id: "x", trigger, tags: ["ok", "legal:maybe"] }, /^tags\[1\]: expected legal:<flag> with flag one of none, /],
    [{ request_id: "x", trigger, tags: ["connector:http://x"] }, /^tags\[0\]: expected connector:mcp:\/\/<name>/],
    [{ request_id: " ", trigger }, /^request_id: must not be empty$/],
    [{ trigger }, /^request_id: missing required field$/],
    [{ request_id: "x" }, /^trigger: missing required field$/],
    ["{", /^malformed JSON/]
  ])("%j is 400 invalid_request", async (body, message) => {
    const res = await plan(body)
    expect(res.status).toBe(400)
    const json = await readJson(res)
    expect(json.error).toBe("invalid_request")
    expect(json.message).toMatch(message)
  })

  it("needs operator.write for device tokens", async () => {
    const issue = async (scopes: ReadonlyArray<string>) =>
      (await readJson(await postJson(gw, "/auth/device-tokens/issue", { device_id: "dev-plan", role: "client", scopes }, gw.adminToken)))
        .token as string
    const body = { request_id: "http-scoped", trigger, tags: ["spend:1:EUR", "pii:none", "legal:none"] }
    expect((await plan(body, await issue(["operator.read"]))).status).toBe(403)
    expect((await plan(body, await issue(["operator.write"]))).status).toBe(200)
    expect((await postJson(gw, "/plan", body)).status).toBe(401)
  })

  it("is in the OpenAPI document", async () => {
    const doc = await readJson(await gw.fetch("/openapi.json", { headers: { authorization: `Bearer ${gw.adminToken}` } }))
    expect(Object.keys(doc.paths["/plan"])).toEqual(["post"])
  })
})

/** Concurrent duplicates over HTTP, with the real approvals: one plan, one pending approval. */
const concurrentDuplicates = async (gateway: TestGateway) => {
  const body = { request_id: "http-race", trigger, tags: ["spend:20000:EUR", "pii:none", "legal:none"] }
  const responses = await Promise.all(Array.from({ length: 6 }, () => postJson(gateway, "/plan", body, gateway.adminToken)))
  const bodies = await Promise.all(responses.map(readJson))
  expect(responses.map((r) => r.status)).toEqual(Array(6).fill(200))
  for (const b of bodies) expect(b).toEqual(bodies[0])
  expect(bodies[0].status).toBe("escalate")
  expect(bodies[0].escalation.step_index).toBe(2)
  const pending = await readJson(await gateway.fetch("/approvals", { headers: { authorization: `Bearer ${gateway.adminToken}` } }))
  const forPlan = pending.approvals.filter((a: { plan_id: string }) => a.plan_id === bodies[0].plan_id)
  expect(forPlan).toHaveLength(1)
  expect(forPlan[0]).toMatchObject({
    id: bodies[0].escalation.approval_id,
    kind: "spend",
    status: "pending",
    step_index: 2,
    prompt: bodies[0].escalation.action.args.prompt,
    expires_at: bodies[0].escalation.expires_at
  })
  expect(forPlan[0].context.policy_decision.decision).toBe("require_approval")
  expect(forPlan[0].context.tags).toEqual(body.tags)
}

describe("POST /plan concurrent duplicates", () => {
  it("create one plan and one approval on SQLite", () => concurrentDuplicates(gw))

  it.skipIf(postgres === undefined)("create one plan and one approval on PostgreSQL", async () => {
    const pg = await startGateway({}, postgres!.make())
    try {
      await concurrentDuplicates(pg)
    } finally {
      await pg.close()
    }
  })
})
