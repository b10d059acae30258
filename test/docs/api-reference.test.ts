/**
 * docs/api.md is generated from the declarations (scripts/apiReference.ts,
 * `npm run docs:api`) and must stay equal to them; every served HTTP
 * operation and every handled WebSocket type has a description and an
 * example, and the WebSocket examples are what their schemas accept.
 * The HTTP examples are run by test/docs/api-examples.test.ts.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { orderedEndpoints, renderApiReference } from "../../scripts/apiReference.ts"
import { makeDecoder } from "../../services/shared/decode.ts"
import { WsMessages } from "../../src/app/contracts.ts"

const DOC = join(import.meta.dirname, "..", "..", "docs", "api.md")

describe("docs/api.md", () => {
  it("equals what the declarations render (run `npm run docs:api` after changing an endpoint)", () => {
    const rendered = renderApiReference()
    const current = readFileSync(DOC, "utf8")
    if (current !== rendered) {
      const a = current.split("\n")
      const b = rendered.split("\n")
      const line = a.findIndex((l, i) => l !== b[i])
      expect.fail(`docs/api.md is out of date: run \`npm run docs:api\` (first difference at line ${line + 1}:\n  file:     ${a[line]}\n  rendered: ${b[line]})`)
    }
  })

  it("describes every served HTTP operation and gives it an example", () => {
    const endpoints = orderedEndpoints()
    expect(endpoints.length).toBeGreaterThanOrEqual(67)
    expect(endpoints.filter((e) => (e.description ?? "").trim() === "").map((e) => `${e.method} ${e.path}`)).toEqual([])
    expect(endpoints.filter((e) => e.example === undefined).map((e) => `${e.method} ${e.path}`)).toEqual([])
  })

  it("describes every handled WebSocket type with an example its schemas accept", () => {
    for (const message of WsMessages) {
      expect(message.description, message.type).toBeTruthy()
      expect(message.example, message.type).toBeDefined()
      const payload = makeDecoder(message.payload as never, { label: "payload" })(message.example!.payload ?? {})
      expect(Result.isSuccess(payload) ? "ok" : payload.failure, `${message.type} payload`).toBe("ok")
      if (message.example!.result !== undefined) {
        const result = makeDecoder(message.result as never, { label: "result" })(message.example!.result)
        expect(Result.isSuccess(result) ? "ok" : result.failure, `${message.type} result`).toBe("ok")
      }
    }
  })
})
