/**
 * The routing configuration's pure parts (services/routing): strict
 * decoding with messages naming the field, the thread → agent lookup,
 * decoding stored rows (corrupt content is reported, never thrown) and
 * `created_by` from a principal (never a token).
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { makeDecoder } from "../../../services/shared/decode.ts"
import { actorOf, agentForThread, decodeConfig, decodeRow } from "../../../services/routing/RoutingConfigService.ts"
import { MAX_THREADS, RoutingConfigRevertRequest, RoutingConfigUpdateRequest } from "../../../services/routing/schema.ts"

const failure = <A>(result: Result.Result<A, string>): string => {
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
  return result.failure
}

const THREADS = "config.messenger.threads: expected thread ids of 1 to 256 characters without control characters"

describe("RoutingConfig decoding (strict)", () => {
  it("accepts {v: 1} and a full messenger section", () => {
    expect(decodeConfig({ v: 1 })).toEqual(Result.succeed({ v: 1 }))
    const full = { v: 1, messenger: { default_agent_id: "agent.a", threads: { "-100123:7": "agent_b", "t 2": "c" } } }
    expect(decodeConfig(full)).toEqual(Result.succeed(full))
    expect(decodeConfig({ v: 1, messenger: {} })).toEqual(Result.succeed({ v: 1, messenger: {} }))
  })

  it.each([
    ["v ≠ 1", { v: 2 }, "config.v: expected 1, got 2"],
    ["a missing v", {}, "config.v: missing required field"],
    ["not an object", [], "config: expected an object, got an array"],
    ["an unknown top-level key", { v: 1, telegram: {} }, "config.telegram: unexpected field"],
    ["an unknown messenger key", { v: 1, messenger: { default_agent: "a" } }, "config.messenger.default_agent: unexpected field"],
    ["a bad default agent id", { v: 1, messenger: { default_agent_id: "bad agent" } }, /^config\.messenger\.default_agent_id: expected an agent id/],
    ["a bad thread agent id", { v: 1, messenger: { threads: { t1: "x/y" } } }, /^config\.messenger\.threads\.t1: expected an agent id/],
    ["a non-string thread agent", { v: 1, messenger: { threads: { t1: 7 } } }, /^config\.messenger\.threads\.t1: expected an agent id .*, got 7$/],
    ["an empty thread id", { v: 1, messenger: { threads: { ok: "a", "": "a" } } }, `${THREADS}, got ""`],
    ["a thread id over 256 characters", { v: 1, messenger: { threads: { ["t".repeat(257)]: "a" } } }, `${THREADS}, got "${"t".repeat(40)}…"`],
    ["a thread id with a control character", { v: 1, messenger: { threads: { "a\nb": "a" } } }, `${THREADS}, got "a\\nb"`]
  ])("rejects %s", (_name, input, message) => {
    const problem = failure(decodeConfig(input))
    if (typeof message === "string") expect(problem).toBe(message)
    else expect(problem).toMatch(message)
  })

  it("accepts messenger.operators (chat ids) and rejects a bad one", () => {
    const config = { v: 1, messenger: { operators: ["-1001234", "42"] } }
    expect(decodeConfig(config)).toEqual(Result.succeed(config))
    expect(failure(decodeConfig({ v: 1, messenger: { operators: ["ok", ""] } }))).toMatch(/^config\.messenger\.operators\[1\]: expected a chat id of 1 to 256 characters/)
    expect(failure(decodeConfig({ v: 1, messenger: { operators: "42" } }))).toMatch(/^config\.messenger\.operators: /)
  })

  it("rejects __proto__ as a thread id (parsed JSON has it as an own key)", () => {
    expect(failure(decodeConfig(JSON.parse("{\"v\":1,\"messenger\":{\"threads\":{\"__proto__\":\"a\"}}}")))).toMatch(/__proto__/)
  })

  it(`bounds threads at ${MAX_THREADS}`, () => {
    const threads = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`t${i}`, "a"]))
    expect(Result.isSuccess(decodeConfig({ v: 1, messenger: { threads: threads(MAX_THREADS) } }))).toBe(true)
    expect(failure(decodeConfig({ v: 1, messenger: { threads: threads(MAX_THREADS + 1) } })))
      .toBe(`config.messenger.threads: expected at most ${MAX_THREADS} threads, got an object`)
  })

  it("stays strict inside request bodies, whose other unknown keys are ignored", () => {
    const update = makeDecoder(RoutingConfigUpdateRequest)
    expect(update({ config: { v: 1 }, reason: "r", extra: true })).toEqual(Result.succeed({ config: { v: 1 }, reason: "r" }))
    expect(failure(update({ config: { v: 1, x: 1 } }))).toBe("config.x: unexpected field")
    expect(failure(update({ config: { v: 1 }, reason: "r".repeat(1025) }))).toMatch(/^reason: expected at most 1024 characters/)
    const revert = makeDecoder(RoutingConfigRevertRequest)
    expect(revert({ revision: 3 })).toEqual(Result.succeed({ revision: 3 }))
    for (const revision of [0, -1, 1.5, "1", null]) expect(failure(revert({ revision }))).toMatch(/^revision: /)
  })
})

describe("agentForThread", () => {
  it("thread entry, else default_agent_id, else default", () => {
    const config = { v: 1 as const, messenger: { default_agent_id: "fallback", threads: { t1: "one" } } }
    expect(agentForThread(config, "t1")).toBe("one")
    expect(agentForThread(config, "t2")).toBe("fallback")
    expect(agentForThread({ v: 1, messenger: { threads: { t1: "one" } } }, "t2")).toBe("default")
    expect(agentForThread({ v: 1 }, "t1")).toBe("default")
    // Inherited object members are not thread entries.
    expect(agentForThread({ v: 1, messenger: { threads: {} } }, "toString")).toBe("default")
  })
})

describe("decodeRow", () => {
  const row = {
    revision: 4,
    config_json: "{\"messenger\":{\"default_agent_id\":\"a\"},\"v\":1}",
    created_at: "2026-01-01T00:00:00.000Z",
    created_by_json: "{\"kind\":\"admin\"}",
    reason: null,
    reverted_from_revision: null
  }

  it("decodes a stored revision, leaving NULL columns out", () => {
    expect(decodeRow(row)).toEqual(Result.succeed({
      revision: 4,
      config: { v: 1, messenger: { default_agent_id: "a" } },
      created_at: "2026-01-01T00:00:00.000Z",
      created_by: { kind: "admin" }
    }))
    expect(decodeRow({ ...row, reason: "why", reverted_from_revision: 2 })).toMatchObject(
      Result.succeed({ reason: "why", reverted_from_revision: 2 })
    )
  })

  it.each([
    ["config_json that is not JSON", { config_json: "not json" }, /^stored routing config revision 4 does not decode: config_json: malformed JSON/],
    ["config_json with v: 2", { config_json: "{\"v\":2}" }, "stored routing config revision 4 does not decode: config_json.v: expected 1, got 2"],
    ["config_json with an unknown key", { config_json: "{\"v\":1,\"x\":1}" }, "stored routing config revision 4 does not decode: config_json.x: unexpected field"],
    ["created_by_json without kind", { created_by_json: "{}" }, /^stored routing config revision 4 does not decode: created_by_json\.kind: /]
  ])("reports %s", (_name, patch, message) => {
    const problem = failure(decodeRow({ ...row, ...patch }))
    if (typeof message === "string") expect(problem).toBe(message)
    else expect(problem).toMatch(message)
  })
})

describe("actorOf", () => {
  it("describes the principal without any token", () => {
    expect(actorOf({ kind: "admin" })).toEqual({ kind: "admin" })
    expect(actorOf({ kind: "device", tokenId: "tok-id", deviceId: "dev-1", role: "client", scopes: new Set(["operator.admin"]) }))
      .toEqual({ kind: "device", token_id: "tok-id", device_id: "dev-1" })
    expect(actorOf({ kind: "node", nodeId: "n1", pairingId: 3 })).toEqual({ kind: "node", node_id: "n1" })
    expect(actorOf(undefined)).toEqual({ kind: "anonymous" })
  })
})
