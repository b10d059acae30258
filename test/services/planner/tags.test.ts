/** Tag grammar (services/planner/tags.ts; docs/planner.md "Tags"). */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { parseTags } from "../../../services/planner/tags.ts"

const ok = (tags: ReadonlyArray<string>) => {
  const result = parseTags(tags)
  if (Result.isFailure(result)) throw new Error(result.failure)
  return result.success
}
const fail = (tags: ReadonlyArray<string>) => {
  const result = parseTags(tags)
  if (Result.isSuccess(result)) throw new Error(`accepted ${JSON.stringify(tags)}`)
  return result.failure
}

describe("parseTags", () => {
  it("leaves every section absent without tags (free-form tags are ignored)", () => {
    expect(ok([])).toEqual({ policy: {} })
    expect(ok(["urgent", "Spend:1:EUR", "spend", "team:ops"])).toEqual({ policy: {} })
  })

  it("passes the request_id through to the policy check", () => {
    expect(Result.getOrThrow(parseTags([], "req-1"))).toEqual({ policy: { request_id: "req-1" } })
  })

  it("reads spend:<amount>:<CUR>[:merchant], uppercasing the currency and spacing the merchant", () => {
    expect(ok(["spend:8750:eur"])).toEqual({
      policy: { spend: { amount_minor_units: 8750, currency: "EUR" } },
      spend: { amount_minor_units: 8750, currency: "EUR" }
    })
    expect(ok(["spend:0:JPY:Flower_Shop:Main_St"]).spend).toEqual({
      amount_minor_units: 0,
      currency: "JPY",
      merchant: "Flower Shop:Main St"
    })
    expect(ok(["spend:007:USD"]).spend?.amount_minor_units).toBe(7)
  })

  it("collects pii categories and legal flags in order, without duplicates; none declares an empty list", () => {
    expect(ok(["pii:financial", "pii:basic_contact", "pii:financial"]).policy.pii).toEqual({
      categories: ["financial", "basic_contact"]
    })
    expect(ok(["legal:other", "legal:requires_review"]).policy.legal).toEqual({ flags: ["other", "requires_review"] })
    expect(ok(["pii:none", "legal:none", "pii:none"]).policy).toEqual({ pii: { categories: [] }, legal: { flags: [] } })
  })

  it("reads one connector scope", () => {
    expect(ok(["connector:mcp://calendar"]).policy.connector).toEqual({ scope: "mcp://calendar" })
    expect(ok(["connector:mcp://My.tool_2-x"]).policy.connector).toEqual({ scope: "mcp://My.tool_2-x" })
  })

  it.each([
    [["spend:"], /^tags\[0\]: expected spend:<amount_minor_units>:<CUR>\[:<merchant>\], got "spend:"$/],
    [["x", "spend:12.5:EUR"], /^tags\[1\]: expected spend:/],
    [["spend:-5:EUR"], /^tags\[0\]: expected spend:/],
    [["spend:100"], /^tags\[0\]: expected spend:/],
    [["spend:100:EURO"], /^tags\[0\]: expected spend:/],
    [["spend:100:EUR:"], /^tags\[0\]: expected spend:/],
    [["spend:100:EUR:___"], /^tags\[0\]: expected spend:/],
    [["spend:99999999999999999:EUR"], /^tags\[0\]: expected spend:/],
    [["spend:1:EUR", "spend:2:EUR"], /^tags\[1\]: only one spend tag is allowed \(tags\[0\] is one\)$/],
    [["pii:dna"], /^tags\[0\]: expected pii:<category> with category one of none, basic_contact, .*, got "pii:dna"$/],
    [["pii:"], /^tags\[0\]: expected pii:<category>/],
    [["pii:Financial"], /^tags\[0\]: expected pii:<category>/],
    [["pii:health", "pii:none"], /^tags\[1\]: pii:none cannot be combined with other pii tags$/],
    [["pii:none", "pii:health"], /^tags\[1\]: pii:none cannot be combined with other pii tags$/],
    [["legal:nope"], /^tags\[0\]: expected legal:<flag> with flag one of none, prohibited_content, /],
    [["legal:none", "legal:other"], /^tags\[1\]: legal:none cannot be combined with other legal tags$/],
    [["connector:"], /^tags\[0\]: expected connector:mcp:\/\/<name>/],
    [["connector:https://calendar"], /^tags\[0\]: expected connector:mcp:\/\/<name>/],
    [["connector:mcp://"], /^tags\[0\]: expected connector:mcp:\/\/<name>/],
    [["connector:mcp://a b"], /^tags\[0\]: expected connector:mcp:\/\/<name>/],
    [["connector:mcp://files/x"], /^tags\[0\]: expected connector:mcp:\/\/<name>/],
    [["connector:mcp://crm", "connector:mcp://email"], /^tags\[1\]: only one connector tag is allowed/]
  ])("%j is invalid", (tags, message) => {
    expect(fail(tags)).toMatch(message)
  })

  it("never echoes a long tag in full", () => {
    expect(fail([`pii:${"x".repeat(200)}`])).toMatch(/got "pii:x{36}…"$/)
  })
})
