/**
 * Chain verification (gateway-api.md "Audit"; docs/audit.md "Verification"),
 * pure. Events are checked in the order given; the first that fails any
 * check breaks the chain:
 *
 * 1. it belongs to the same chain (`plan_id`) as the first event;
 * 2. where `action` is present (not null), `action_sha256` is its digest
 *    (hash.ts `actionDigestMatches`: also the form written before issue 21);
 * 3. `event_hash` recomputes from `{action_sha256, occurred_at, plan_id,
 *    prev_hash, step_index}`;
 * 4. it links to its predecessor: `prev_hash` is the previous event's
 *    `event_hash` and `step_index` the previous one's + 1. The first event
 *    must start the chain (`step_index` 0, `prev_hash` null) unless it is a
 *    `forget.proof` of a `delete` (its predecessors were deleted on purpose;
 *    its `prev_hash`, still covered by its own hash, anchors what was
 *    removed);
 * 5. an erased action (`action: null`) is covered by an anonymize proof: the
 *    events between two `forget.proof`s of `anonymize` (or from the start to
 *    the first one) hold exactly as many null actions as the closing proof's
 *    `deleted_count` (else the chain breaks at that proof), and no null
 *    action follows the last one (else it breaks at that event). An event
 *    given without `action` (key absent) is checked by its hashes only;
 * 6. with the chain's head (the stored `audit_chains` row: last index and
 *    hash), the last event is the head: an event past the head breaks there,
 *    the last event with the head's index but another hash breaks at it, and
 *    a list that ends before the head breaks at `events.length` with no id
 *    (the missing event).
 *
 * So a changed action, time or link, a removed, inserted or reordered event,
 * an erased action without its proof, or a removed newest event is reported
 * at the first event where the stored chain and the given one differ.
 *
 * @module
 */
import { actionDigestMatches, eventHash } from "./hash.ts"
import type { AuditVerifyResult, ChainableEvent } from "./schema.ts"

/** A chain's head as stored (`audit_chains`): its last event's `step_index` and `event_hash`. */
export interface ChainHead {
  readonly last_step_index: number
  readonly last_hash: string | null
}

const isProof = (action: unknown, decision: string): boolean =>
  typeof action === "object" && action !== null &&
  (action as { type?: unknown }).type === "forget.proof" &&
  (action as { decision?: unknown }).decision === decision

/** The action of a proof that the chain's earlier events were deleted. */
export const isDeleteProof = (action: unknown): boolean => isProof(action, "delete")

/** `deleted_count` of an anonymize proof's action, else `undefined`. */
const anonymizedCount = (event: ChainableEvent): number | undefined => {
  if (!hasAction(event) || !isProof(event.action, "anonymize")) return undefined
  const count = (event.action as { deleted_count?: unknown }).deleted_count
  return typeof count === "number" && Number.isSafeInteger(count) && count >= 0 ? count : -1
}

const hasAction = (event: ChainableEvent): boolean => event.action !== undefined && event.action !== null

/** True when `event` passes checks 1–4 against the chain's first event and its predecessor. */
const intact = (event: ChainableEvent, first: ChainableEvent, previous: ChainableEvent | undefined): boolean => {
  if (event.plan_id !== first.plan_id) return false
  if (hasAction(event) && !actionDigestMatches(event.action, event.action_sha256)) return false
  if (eventHash(event) !== event.event_hash) return false
  if (previous === undefined) {
    return (event.step_index === 0 && event.prev_hash === null) || (hasAction(event) && isDeleteProof(event.action))
  }
  return event.prev_hash === previous.event_hash && event.step_index === previous.step_index + 1
}

const broken = (index: number, id: number | null, checked = index + 1): AuditVerifyResult => ({
  valid: false,
  checked_count: checked,
  broken_at_index: index,
  broken_at_id: id
})

/**
 * Verifies `events` as one whole chain, in the order given (checks 1–5; an
 * empty list is valid), and, when `head` is given, against the stored head
 * (check 6).
 */
export const verifyChain = (events: ReadonlyArray<ChainableEvent>, head?: ChainHead): AuditVerifyResult => {
  /** Indexes of null actions since the last anonymize proof. */
  let erased: Array<number> = []
  for (let index = 0; index < events.length; index++) {
    const event = events[index]
    if (!intact(event, events[0], index === 0 ? undefined : events[index - 1])) return broken(index, event.id)
    if (head !== undefined && event.step_index > head.last_step_index) return broken(index, event.id)
    if (event.action === null) erased.push(index)
    const count = anonymizedCount(event)
    if (count !== undefined) {
      if (count !== erased.length) return broken(index, event.id)
      erased = []
    }
  }
  if (erased.length > 0) return broken(erased[0], events[erased[0]].id)
  if (head !== undefined) {
    const last = events.at(-1)
    if (last === undefined || last.step_index < head.last_step_index) return broken(events.length, null, events.length)
    if (last.event_hash !== head.last_hash) return broken(events.length - 1, last.id)
  }
  return { valid: true, checked_count: events.length, broken_at_index: null, broken_at_id: null }
}
