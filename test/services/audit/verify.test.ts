/**
 * Chain verification (services/audit/verify.ts): a chain built with the
 * hash module verifies; each kind of tampering (changed action, time,
 * prev_hash or step, removed, reordered or foreign events, an action whose
 * digest was swapped too) is reported at the first event that differs,
 * with its index and id; anonymized events verify only with the anonymize
 * proof that covers them; a chain may start with the proof of a deletion;
 * with the stored head, a removed or replaced newest event is caught.
 */
import { describe, expect, it } from "@effect/vitest"
import { actionDigest, eventHash } from "../../../services/audit/hash.ts"
import type { ChainableEvent } from "../../../services/audit/schema.ts"
import { verifyChain } from "../../../services/audit/verify.ts"

/** A valid chain of `actions` for `plan_id`, starting at `start` after `prev` (ids 101, 102, …). */
const chain = (
  actions: ReadonlyArray<unknown>,
  options: { readonly plan_id?: string; readonly start?: number; readonly prev?: string | null } = {}
): Array<ChainableEvent> => {
  const events: Array<ChainableEvent> = []
  let prev = options.prev ?? null
  actions.forEach((action, i) => {
    const fields = {
      plan_id: options.plan_id ?? "plan-1",
      step_index: (options.start ?? 0) + i,
      occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
      action_sha256: actionDigest(action),
      prev_hash: prev
    }
    const event_hash = eventHash(fields)
    events.push({ id: 101 + i, ...fields, action, event_hash })
    prev = event_hash
  })
  return events
}

const ACTIONS = [
  { type: "policy.checked", decision: "require_approval" },
  { type: "approval.requested", approval_id: 1 },
  { type: "plan.created", status: "escalate" },
  { type: "approval.approved", approval_id: 1 },
  { type: "run.queued", run_id: "run-1" }
]

const broken = (index: number, id: number) => ({ valid: false, checked_count: index + 1, broken_at_index: index, broken_at_id: id })

describe("verifyChain", () => {
  it("accepts an intact chain and an empty list", () => {
    expect(verifyChain(chain(ACTIONS))).toEqual({ valid: true, checked_count: 5, broken_at_index: null, broken_at_id: null })
    expect(verifyChain([])).toEqual({ valid: true, checked_count: 0, broken_at_index: null, broken_at_id: null })
  })

  it("catches a changed action (its digest no longer matches)", () => {
    const events = chain(ACTIONS)
    events[2] = { ...events[2], action: { type: "plan.created", status: "success" } }
    expect(verifyChain(events)).toEqual(broken(2, 103))
  })

  it("catches a changed action whose digest was recomputed too (the event hash no longer matches)", () => {
    const events = chain(ACTIONS)
    const forged = { type: "approval.approved", approval_id: 2 }
    events[3] = { ...events[3], action: forged, action_sha256: actionDigest(forged) }
    expect(verifyChain(events)).toEqual(broken(3, 104))
  })

  it("catches a changed occurred_at", () => {
    const events = chain(ACTIONS)
    events[1] = { ...events[1], occurred_at: "2025-12-31T23:59:59.000Z" }
    expect(verifyChain(events)).toEqual(broken(1, 102))
  })

  it("catches a removed event (the next one no longer links)", () => {
    const events = chain(ACTIONS)
    events.splice(2, 1)
    expect(verifyChain(events)).toEqual(broken(2, 104))
    expect(verifyChain(chain(ACTIONS).slice(1))).toEqual(broken(0, 102)) // the first one removed
  })

  it("catches reordered events", () => {
    const events = chain(ACTIONS)
    ;[events[1], events[3]] = [events[3], events[1]]
    expect(verifyChain(events)).toEqual(broken(1, 104))
  })

  it("catches a changed prev_hash, and a relinked chain whose step_index was changed", () => {
    const events = chain(ACTIONS)
    events[4] = { ...events[4], prev_hash: events[2].event_hash }
    expect(verifyChain(events)).toEqual(broken(4, 105))
    // Rehashing the changed event does not help: the link to its real predecessor is gone.
    const relinked = chain(ACTIONS)
    const fields = { ...relinked[4], prev_hash: relinked[2].event_hash }
    relinked[4] = { ...fields, event_hash: eventHash(fields) }
    expect(verifyChain(relinked)).toEqual(broken(4, 105))
  })

  it("catches an event of another chain spliced in", () => {
    const events = chain(ACTIONS)
    events[2] = chain(ACTIONS, { plan_id: "plan-2" })[2]
    expect(verifyChain(events)).toEqual(broken(2, 103))
  })

  it("an event given without its action is checked by its hashes only", () => {
    const events: Array<ChainableEvent> = chain(ACTIONS)
    const { action: _, ...withoutAction } = events[3]
    events[3] = withoutAction
    expect(verifyChain(events).valid).toBe(true)
  })

  const anonymizeProof = (deleted_count: number) => ({ type: "forget.proof", decision: "anonymize", entity_type: "plan", entity_id: "plan-1", deleted_count })
  const erase = (events: Array<ChainableEvent>, indexes: ReadonlyArray<number>) =>
    events.map((e, i) => (indexes.includes(i) ? { ...e, action: null } : e))

  it("an erased action (null) verifies when an anonymize proof after it covers it", () => {
    const events = erase(chain([...ACTIONS, anonymizeProof(5), { type: "run.running" }]), [0, 1, 2, 3, 4])
    expect(verifyChain(events)).toEqual({ valid: true, checked_count: 7, broken_at_index: null, broken_at_id: null })
    // Two rounds: the second proof covers only what it erased; earlier proofs keep their actions.
    const retain = { type: "forget.proof", decision: "retain", entity_type: "plan", entity_id: "plan-1", deleted_count: 0 }
    const twice = erase(chain([ACTIONS[0], ACTIONS[1], anonymizeProof(2), retain, ACTIONS[2], anonymizeProof(1)]), [0, 1, 4])
    expect(verifyChain(twice).valid).toBe(true)
    // Nothing left to erase: a proof with deleted_count 0.
    expect(verifyChain(erase(chain([ACTIONS[0], anonymizeProof(1), anonymizeProof(0)]), [0])).valid).toBe(true)
  })

  it("an erased action without a proof covering it breaks the chain at that event", () => {
    expect(verifyChain(erase(chain(ACTIONS), [1]))).toEqual(broken(1, 102))
    // After the last proof: not covered.
    expect(verifyChain(erase(chain([ACTIONS[0], anonymizeProof(1), ACTIONS[1], ACTIONS[2]]), [0, 3]))).toEqual(broken(3, 104))
    // A retain or delete proof covers nothing.
    const retain = { type: "forget.proof", decision: "retain", entity_type: "plan", entity_id: "plan-1", deleted_count: 1 }
    expect(verifyChain(erase(chain([ACTIONS[0], retain]), [0]))).toEqual(broken(0, 101))
  })

  it("more erased actions than the proof says it erased (an earlier proof erased too) break the chain at the proof", () => {
    const retain = { type: "forget.proof", decision: "retain", entity_type: "plan", entity_id: "plan-1", deleted_count: 0 }
    // The retain proof's action erased as well: three nulls, the anonymize proof erased two.
    expect(verifyChain(erase(chain([ACTIONS[0], retain, ACTIONS[1], anonymizeProof(2)]), [0, 1, 2]))).toEqual(broken(3, 104))
    // Fewer: the proof claims more than the chain shows.
    expect(verifyChain(erase(chain([ACTIONS[0], ACTIONS[1], anonymizeProof(3)]), [0, 1]))).toEqual(broken(2, 103))
  })

  it("with the chain's head: the last event must be the head (index and hash)", () => {
    const events = chain(ACTIONS)
    const head = { last_step_index: 4, last_hash: events[4].event_hash }
    expect(verifyChain(events, head).valid).toBe(true)
    // The newest event removed: the chain ends before its head; reported one past the last event, with no id.
    expect(verifyChain(events.slice(0, 4), head)).toEqual({ valid: false, checked_count: 4, broken_at_index: 4, broken_at_id: null })
    // Every event removed.
    expect(verifyChain([], head)).toEqual({ valid: false, checked_count: 0, broken_at_index: 0, broken_at_id: null })
    // The newest event replaced by a consistent one: its hash is not the head's.
    const forged = chain([...ACTIONS.slice(0, 4), { type: "run.queued", run_id: "run-2" }])
    expect(verifyChain(forged, head)).toEqual(broken(4, 105))
    // An event beyond the head.
    expect(verifyChain(chain([...ACTIONS, { type: "extra" }]), head)).toEqual(broken(5, 106))
    // No head: nothing to compare with (a chain that never had events).
    expect(verifyChain([], undefined).valid).toBe(true)
  })

  it("accepts a chain that starts with a delete proof, and only then", () => {
    const before = chain(ACTIONS)
    const proof = { type: "forget.proof", decision: "delete", entity_type: "plan", entity_id: "plan-1", deleted_count: 5 }
    const after = chain([proof, { type: "run.queued" }], { start: 5, prev: before[4].event_hash })
    expect(verifyChain(after).valid).toBe(true)
    // Not a delete proof: an anonymize proof, or a proof whose action was erased, cannot start a chain.
    const anonymized = { ...proof, decision: "anonymize" }
    expect(verifyChain(chain([anonymized], { start: 5, prev: before[4].event_hash }))).toEqual(broken(0, 101))
    expect(verifyChain([{ ...after[0], action: null }, after[1]])).toEqual(broken(0, 101))
  })

  it("accepts an action digest written before issue 21 (array-index names first), and only for that action", () => {
    // Digests pinned from the gateway before issue 21; the action has names that are array indices.
    const action = { type: "x", args: { "10": "a", "9": "b", z: [1, { "2": true, "!": null }] } }
    const LEGACY = "93cc19d4948de96dc1271f79f4946123135ba020b0b44c7f13da7b27396a4143"
    // printf '%s' '{"args":{"10":"a","9":"b","z":[1,{"!":null,"2":true}]},"type":"x"}' | sha256sum
    const RFC8785 = "9ff32d90bc50dc6d6127d840a6889331fa70a19101109062c260c12201020d4c"
    expect(actionDigest(action)).toBe(RFC8785)
    const old = { plan_id: "plan-1", step_index: 0, occurred_at: "2026-01-01T00:00:00.000Z", action_sha256: LEGACY, prev_hash: null }
    const stored: ChainableEvent = { id: 101, ...old, action, event_hash: eventHash(old) }
    const next = chain([{ type: "after" }], { start: 1, prev: stored.event_hash })
    expect(verifyChain([stored, ...next]).valid).toBe(true)
    // The old form is no loophole: another action under either digest still breaks the chain.
    expect(verifyChain([{ ...stored, action: { ...action, type: "y" } }, ...next])).toEqual(broken(0, 101))
  })
})
