/** Keys and lanes (reference §6.4) and the run request's decoding defaults. */
import { describe, expect, it } from "vitest"
import { Schema } from "effect"
import { keyAgentId, keyProblem, parseKey, WorkflowKey, WorkflowLane } from "../../../../services/workflow/runs/keys.ts"
import { WorkflowRunRequest } from "../../../../services/workflow/runs/schema.ts"

const decodeKey = Schema.decodeUnknownExit(WorkflowKey)
const decodeLane = Schema.decodeUnknownExit(WorkflowLane)
const decodeRequest = Schema.decodeUnknownExit(WorkflowRunRequest)

describe("workflow keys", () => {
  it.each([
    "agent:default:main",
    "agent:a1:telegram:main",
    "agent:a1:dm:peer-1",
    "agent:a1:telegram:dm:peer",
    "agent:a1:telegram:acct:dm:peer",
    "agent:a1:telegram:group:g1",
    "agent:a1:telegram:channel:c1",
    "agent:a1:telegram:acct:group:g1",
    "agent:a1:slack:acct:channel:c1",
    "cron:nightly",
    "hook:123e4567-e89b-12d3-a456-426614174000",
    "node:node-7"
  ])("accepts %s", (key) => {
    expect(keyProblem(key)).toBeUndefined()
    expect(decodeKey(key)._tag).toBe("Success")
  })

  it.each([
    ["", "must not be empty"],
    ["user:x", "starts with agent:, cron:, hook: or node:"],
    ["agent::main", "must not be empty"],
    ["agent:a1", "an agent key has one of the forms"],
    ["agent:a1:other", "an agent key has one of the forms"],
    ["agent:a1:telegram:x:y", "an agent key has one of the forms"],
    ["agent:a b:main", "whitespace"],
    ["agent:a/b:main", "agent id of a key"],
    ["cron:a:b", "cron:<jobId>"],
    ["hook:not-a-uuid", "hook:<uuid>"],
    ["node:", "must not be empty"],
    [`cron:${"x".repeat(600)}`, "at most 512"]
  ])("rejects %j naming the rule", (key, rule) => {
    expect(keyProblem(key)).toContain(rule)
    const exit = decodeKey(key)
    expect(exit._tag).toBe("Failure")
    expect(String(exit)).toContain(rule)
  })

  it("names the agent whose policy applies", () => {
    expect(parseKey("agent:a1:telegram:dm:p")).toEqual({ kind: "agent", agentId: "a1" })
    expect(keyAgentId("agent:a1:main")).toBe("a1")
    expect(keyAgentId("cron:nightly")).toBe("default")
    expect(parseKey("nope")).toBeUndefined()
  })

  it("accepts the four lanes only", () => {
    for (const lane of ["main", "cron", "heartbeat", "subagent"]) expect(decodeLane(lane)._tag).toBe("Success")
    const exit = decodeLane("fast")
    expect(exit._tag).toBe("Failure")
    expect(String(exit)).toContain("main, cron, heartbeat, subagent")
  })
})

describe("WorkflowRunRequest", () => {
  it("defaults the lane and each step's limits", () => {
    const exit = decodeRequest({ key: "agent:a:main", steps: [{ type: "Http", args: { url: "http://x" } }, { type: "Llm", max_attempts: 1, timeout_ms: 5 }] })
    expect(exit._tag).toBe("Success")
    if (exit._tag !== "Success") return
    expect(exit.value.lane).toBe("main")
    expect(exit.value.steps.map((s) => [s.max_attempts, s.timeout_ms])).toEqual([[3, 60000], [1, 5]])
    expect(exit.value.steps[1]!.args).toEqual({})
  })

  it.each([
    [{ key: "agent:a:main", steps: [] }, "at least one step"],
    [{ key: "bad", steps: [{ type: "Llm" }] }, "starts with agent:"],
    [{ key: "agent:a:main", lane: "x", steps: [{ type: "Llm" }] }, "a lane"],
    [{ key: "agent:a:main", steps: [{ type: "Llm", max_attempts: 11 }] }, "from 1 to 10"],
    [{ key: "agent:a:main", steps: [{ type: "Llm", timeout_ms: 0 }] }, "from 1 to 600000"],
    [{ key: "agent:a:main", steps: [{ type: "Nope" }] }, "Research"]
  ])("rejects %j", (body, message) => {
    const exit = decodeRequest(body)
    expect(exit._tag).toBe("Failure")
    expect(String(exit)).toContain(message)
  })
})
