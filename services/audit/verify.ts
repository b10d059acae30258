/**
 * Chain verification (gateway-api.md "Audit"; docs/audit.md "Verification"),
 * pure. Events are checked in the order given; the first that fails any
 * check breaks the chain:
 *
 * 1. it belongs to the same chain (`plan_id`) as the first event;
 * 2. where `action` is present (not null), `action_sha256` is its digest;
 * 3. `event_hash` recomputes from `{action_sha256, occurred_at, plan_id,
 *    prev_hash, step_index}`;
 * 4. it links to its predecessor: `prev_hash` is the previous event's
 *    `event_hash` and `step_index` the previous one's + 1. The first event
 *    must start the chain (`step_index` 0, `prev_hash` null) unless it is a
 *    `forget.proof` of a `delete` (its predecessors were deleted on purpose;
 *    its `prev_hash`, still covered by its own hash, anchors what was
 *    removed).
 *
 * So a changed action, time or link, a removed, inserted or reordered event
 * is reported at the first event where the stored chain and the given one
 * differ.
 *
 * @module
 */
import { actionDigest, eventHash } from "./hash.ts"
import type { AuditVerifyResult, ChainableEvent } from "./schema.ts"

/** The action of a proof that the chain's earlier events were deleted. */
export const isDeleteProof = (action: unknown): boolean =>
  typeof action === "object" && action !== null &&
  (action as { type?: unknown }).type === "forget.proof" &&
  (action as { decision?: unknown }).decision === "delete"

const hasAction = (event: ChainableEvent): boolean => event.action !== undefined && event.action !== null

/** True when `event` passes checks 1–4 against the chain's first event and its predecessor. */
const intact = (event: ChainableEvent, first: ChainableEvent, previous: ChainableEvent | undefined): boolean => {
  if (event.plan_id !== first.plan_id) return false
  if (hasAction(event) && actionDigest(event.action) !== event.action_sha256) return false
  if (eventHash(event) !== event.event_hash) return false
  if (previous === undefined) {
    return (event.step_index === 0 && event.prev_hash === null) || (hasAction(event) && isDeleteProof(event.action))
  }
  return event.prev_hash === previous.event_hash && event.step_index === previous.step_index + 1
}

/** Verifies `events` as one whole chain, in the order given (an empty list is valid). */
export const verifyChain = (events: ReadonlyArray<ChainableEvent>): AuditVerifyResult => {
  for (let index = 0; index < events.length; index++) {
    if (!intact(events[index], events[0], index === 0 ? undefined : events[index - 1])) {
      return { valid: false, checked_count: index + 1, broken_at_index: index, broken_at_id: events[index].id }
    }
  }
  return { valid: true, checked_count: events.length, broken_at_index: null, broken_at_id: null }
}
