/**
 * The pure rules of watchers: `trigger_config` per trigger type (messages
 * name the field), slots, dedupe keys, and what a firing runs (key, lane,
 * plan and trigger kind per trigger type).
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { dedupeKey, planRun } from "../../../services/watchers/automation.ts"
import { decodeTriggerConfig, slotOf } from "../../../services/watchers/config.ts"
import { parseWatcherId, type Watcher, type WatcherConfig } from "../../../services/watchers/schema.ts"

const ok = (r: Result.Result<WatcherConfig, string>) => {
  if (Result.isFailure(r)) throw new Error(`expected success, got ${r.failure}`)
  return r.success
}
const problem = (r: Result.Result<WatcherConfig, string>) => {
  if (Result.isSuccess(r)) throw new Error(`expected a failure, got ${JSON.stringify(r.success)}`)
  return r.failure
}

describe("decodeTriggerConfig", () => {
  it("periodic: interval_ms ≥ 1000 is required; intervalMs is accepted and stored as interval_ms", () => {
    expect(ok(decodeTriggerConfig("periodic", { interval_ms: 1000 }))).toEqual({ interval_ms: 1000 })
    expect(ok(decodeTriggerConfig("periodic", { intervalMs: 60_000, extra: 1 }))).toEqual({ interval_ms: 60_000 })
    expect(problem(decodeTriggerConfig("periodic", undefined))).toMatch(/^trigger_config\.interval_ms: missing required field/)
    expect(problem(decodeTriggerConfig("periodic", {}))).toMatch(/^trigger_config\.interval_ms: /)
    expect(problem(decodeTriggerConfig("periodic", { interval_ms: 999 }))).toBe(
      "trigger_config.interval_ms: expected an integer of at least 1000 (ms), got 999"
    )
    expect(problem(decodeTriggerConfig("periodic", { interval_ms: 1500.5 }))).toMatch(/^trigger_config\.interval_ms: /)
    expect(problem(decodeTriggerConfig("periodic", { intervalMs: "60000" }))).toMatch(/^trigger_config\.intervalMs: /)
  })

  it("webhook: secret_handle required, max_skew_ms 1..1800000, agent_id an agent id", () => {
    expect(ok(decodeTriggerConfig("webhook", { secret_handle: "sec_1", max_skew_ms: 1_800_000, agent_id: "ops" }))).toEqual({
      secret_handle: "sec_1",
      max_skew_ms: 1_800_000,
      agent_id: "ops"
    })
    expect(problem(decodeTriggerConfig("webhook", {}))).toBe("trigger_config.secret_handle: missing required field")
    expect(problem(decodeTriggerConfig("webhook", { secret_handle: "" }))).toMatch(/^trigger_config\.secret_handle: /)
    expect(problem(decodeTriggerConfig("webhook", { secret_handle: "s", max_skew_ms: 0 }))).toBe(
      "trigger_config.max_skew_ms: expected an integer from 1 to 1800000, got 0"
    )
    expect(problem(decodeTriggerConfig("webhook", { secret_handle: "s", max_skew_ms: 1_800_001 }))).toMatch(/^trigger_config\.max_skew_ms: /)
    expect(problem(decodeTriggerConfig("webhook", { secret_handle: "s", agent_id: "a b" }))).toMatch(/^trigger_config\.agent_id: /)
  })

  it("every type: steps (1..256 workflow steps, defaults filled), key, lane, playbook_id; playbook_id and steps are exclusive", () => {
    const config = ok(decodeTriggerConfig("plan_complete", {
      steps: [{ type: "Http", args: { url: "https://example.com/" } }],
      key: "cron:nightly",
      lane: "heartbeat"
    }))
    expect(config).toEqual({
      steps: [{ type: "Http", args: { url: "https://example.com/" }, max_attempts: 3, timeout_ms: 60_000 }],
      key: "cron:nightly",
      lane: "heartbeat"
    })
    expect(ok(decodeTriggerConfig("plan_complete", undefined))).toEqual({})
    expect(ok(decodeTriggerConfig("plan_complete", { playbook_id: "daily-report" }))).toEqual({ playbook_id: "daily-report" })
    expect(problem(decodeTriggerConfig("plan_complete", { steps: [] }))).toBe("trigger_config.steps: expected at least one step, got an array")
    expect(problem(decodeTriggerConfig("plan_complete", { steps: [{ type: "Teleport" }] }))).toMatch(/^trigger_config\.steps\[0\]\.type: /)
    expect(problem(decodeTriggerConfig("periodic", { interval_ms: 1000, key: "nope" }))).toMatch(/^trigger_config\.key: /)
    expect(problem(decodeTriggerConfig("periodic", { interval_ms: 1000, lane: "fast" }))).toMatch(/^trigger_config\.lane: /)
    expect(problem(decodeTriggerConfig("periodic", { interval_ms: 1000, playbook_id: "a:b" }))).toMatch(/^trigger_config\.playbook_id: /)
    expect(problem(decodeTriggerConfig("plan_complete", { playbook_id: "p", steps: [{ type: "Confirm" }] }))).toBe(
      "trigger_config: playbook_id and steps are exclusive (give one of them)"
    )
  })
})

describe("slots, ids and dedupe keys", () => {
  it("slot = floor(now / interval) × interval", () => {
    expect(slotOf(0, 60_000)).toBe(0)
    expect(slotOf(59_999, 60_000)).toBe(0)
    expect(slotOf(60_000, 60_000)).toBe(60_000)
    expect(slotOf(1_767_225_599_999, 3_600_000)).toBe(1_767_222_000_000)
  })

  it("watcher ids are positive decimal integers", () => {
    expect(parseWatcherId("1")).toBe(1)
    expect(parseWatcherId("42")).toBe(42)
    for (const bad of ["0", "-1", "01", "1.5", "abc", "", "1e3", "99999999999999999"]) expect(parseWatcherId(bad)).toBeUndefined()
  })

  it("dedupe keys", () => {
    expect(dedupeKey({ kind: "slot", slot: 60_000 })).toBe("slot:60000")
    expect(dedupeKey({ kind: "nonce", nonce_digest: "ab", nonce_key: "k" })).toBe("nonce:ab")
    expect(dedupeKey({ kind: "run", run_id: "run-1", status: "failed" })).toBe("run:run-1")
  })
})

describe("planRun", () => {
  const watcher = (trigger_type: Watcher["trigger_type"]): Watcher => ({
    id: 7,
    plan_id: "plan-w",
    trigger_type,
    active: true,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z"
  })
  const steps = [{ type: "Confirm" as const, args: {}, max_attempts: 3, timeout_ms: 60_000 }]

  it("nothing to run without steps or playbook_id", () => {
    expect(planRun(watcher("periodic"), { interval_ms: 1000 }, "firing-1", { kind: "slot", slot: 0 })).toBeUndefined()
  })

  it("periodic: cron:watcher-<id>, lane cron, the watcher's plan, trigger kind cron", () => {
    expect(planRun(watcher("periodic"), { interval_ms: 1000, steps }, "firing-1", { kind: "slot", slot: 5000 })).toEqual({
      what: { steps },
      key: "cron:watcher-7",
      lane: "cron",
      plan_id: "plan-w",
      trigger_kind: "cron",
      trigger: { slot: 5000, watcher_id: 7, firing_id: "firing-1" }
    })
  })

  it("webhook: a fresh hook:<uuid> key, trigger kind webhook, the delivery's metadata", () => {
    const run = planRun(watcher("webhook"), { secret_handle: "s", playbook_id: "p" }, "firing-2", {
      kind: "nonce",
      nonce_digest: "d",
      nonce_key: "k",
      trigger: { body_sha256: "x" }
    })!
    expect(run.key).toMatch(/^hook:[0-9a-f-]{36}$/)
    expect(run).toMatchObject({ what: { playbook_id: "p" }, lane: "cron", plan_id: "plan-w", trigger_kind: "webhook" })
    expect(run.trigger).toEqual({ body_sha256: "x", watcher_id: 7, firing_id: "firing-2" })
  })

  it("plan_complete: a fresh plan, trigger kind hook; key and lane from the config win", () => {
    const run = planRun(watcher("plan_complete"), { steps, key: "agent:ops:main", lane: "main" }, "firing-3", {
      kind: "run",
      run_id: "run-9",
      status: "failed"
    })!
    expect(run.plan_id).toMatch(/^plan-[0-9a-f-]{36}$/)
    expect(run).toMatchObject({ key: "agent:ops:main", lane: "main", trigger_kind: "hook" })
    expect(run.trigger).toEqual({ source_run_id: "run-9", source_status: "failed", watcher_id: 7, firing_id: "firing-3" })
  })
})
