/**
 * The routing page's check before sending (ui/src/pages/routing/validate.ts):
 * the same schema and wording as the gateway's `PUT /routing/config`, so the
 * issue the page shows is the 400 the gateway answers for the same text.
 */
import { describe, expect, it } from "vitest"
import { checkRoutingConfig } from "../../ui/src/pages/routing/validate.ts"
import { readJson, startGateway } from "../support/gateway.ts"

const CASES: ReadonlyArray<[string, unknown]> = [
  ["an unknown key", { v: 1, messenger: { bogus: true } }],
  ["a wrong version", { v: 2 }],
  ["a bad agent id", { v: 1, messenger: { default_agent_id: "no spaces" } }],
  ["a bad thread id", { v: 1, messenger: { threads: { "": "ops" } } }],
  ["not an object", [1]]
]

describe("routing page: the configuration checked in the browser", () => {
  it("accepts a valid configuration, leaving a blank reason out", () => {
    const config = { v: 1, messenger: { default_agent_id: "support", threads: { "telegram:42": "ops" } } }
    expect(checkRoutingConfig(JSON.stringify(config), "  ")).toEqual({ ok: true, body: { config } })
    expect(checkRoutingConfig(JSON.stringify(config), " why ")).toEqual({ ok: true, body: { config, reason: "why" } })
  })

  it("names text that is not JSON and a reason over 1024 characters", () => {
    expect(checkRoutingConfig("{\"v\": 1,", "")).toMatchObject({ ok: false, issue: expect.stringMatching(/^config: malformed JSON/) })
    expect(checkRoutingConfig("{\"v\": 1}", "x".repeat(1025))).toEqual({ ok: false, issue: expect.stringMatching(/^reason: expected at most 1024 characters/) })
  })

  it("gives the gateway's own message for each invalid configuration", async () => {
    const gw = await startGateway({ rateLimitMax: 10_000 })
    try {
      for (const [what, config] of CASES) {
        const checked = checkRoutingConfig(JSON.stringify(config), "")
        expect(checked.ok, what).toBe(false)
        const res = await gw.fetch("/routing/config", {
          method: "PUT",
          headers: { authorization: `Bearer ${gw.adminToken}`, "content-type": "application/json" },
          body: JSON.stringify({ config })
        })
        expect(res.status, what).toBe(400)
        expect(!checked.ok && checked.issue, what).toBe((await readJson(res)).message)
      }
    } finally {
      await gw.close()
    }
  })
})
