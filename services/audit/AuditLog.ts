/**
 * The audit chain (gateway-api.md "Audit"; issue 14 §4; docs/audit.md):
 * every decision that matters is appended as an event to a hash chain, one
 * chain per plan and fixed gateway-wide chains for the rest (chains.ts).
 *
 * An append redacts the action (redact.ts), hashes it (hash.ts) and writes
 * it in the caller's transaction when there is one (so a decision and its
 * event commit or roll back together), else in its own. Appends to one chain
 * are serialised on both databases: the chain's head row is claimed first
 * and held until commit, so no two events ever share a predecessor, and
 * `UNIQUE (plan_id, step_index)` backs that up.
 *
 * The deciding subsystems do not call it: they publish `Decision` domain
 * events (services/domain-events/decisions.ts) and the audit chain
 * subscribes to them in the publisher's transaction ({@link AuditLog.layer}).
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import type { Actor } from "../shared/principal.ts"
import { Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { canonicalJson } from "../shared/canonicalJson.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { isoTime } from "../shared/time.ts"
import { type AuditEventRow, AuditRepo, type ChainSlot } from "./AuditRepo.ts"
import { actionDigest, eventHash } from "./hash.ts"
import { GATEWAY_CHAIN_PREFIX, isGatewayChain } from "./chains.ts"
import { carryOverPlannerEvents } from "./legacy.ts"
import { redactAction } from "./redact.ts"
import type {
  AuditAction,
  AuditEvent,
  AuditForgetRequest,
  AuditForgetResponse,
  AuditReceiptBundle,
  AuditVerifyResult,
  ChainableEvent
} from "./schema.ts"
import { verifyChain } from "./verify.ts"

const toEvent = (row: AuditEventRow): AuditEvent => ({
  ...row,
  action: row.action === null ? null : JSON.parse(row.action)
})

const isProofText = (text: string): boolean => (JSON.parse(text) as { type?: unknown } | null)?.type === "forget.proof"

/** The audit chain service. */
export class AuditLog extends Context.Service<AuditLog, {
  /**
   * Appends `action` (redacted first: no token, secret value, Authorization
   * or cookie is ever recorded) to chain `chain` (a plan id or one of
   * `AuditChains`) at the current time, and returns the event. Joins the
   * caller's transaction when called inside one.
   */
  readonly append: (chain: string, action: AuditAction) => Effect.Effect<AuditEvent>
  /** Runs `effect` in one transaction (a savepoint inside another): a decision and its events together. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** The events of a chain, by step_index (empty when it has none). */
  readonly events: (chain: string) => Effect.Effect<ReadonlyArray<AuditEvent>>
  /**
   * `GET /audit/export/:planId`: the chain with its verification against the
   * stored head (verify.ts check 6: a removed newest event is caught);
   * `NotFound` (404) when the chain never had an event.
   */
  readonly exportChain: (chain: string) => Effect.Effect<AuditReceiptBundle, NotFound>
  /** `POST /audit/verify`: verifies `events` as one whole chain (verify.ts). */
  readonly verify: (events: ReadonlyArray<ChainableEvent>) => AuditVerifyResult
  /**
   * `POST /audit/forget`: `delete` removes the chain's events, `anonymize`
   * erases their actions (digests kept, so the chain still verifies; earlier
   * proofs are kept), `retain` changes nothing; then, in the same
   * transaction, a `forget.proof` event continues the chain, naming `actor`
   * (who asked) and what was asked. Forgetting is for a subject's data (a
   * plan's chain): a gateway security chain (`gateway.*`, chains.ts) is
   * refused with `InvalidRequest` (400) and left untouched.
   */
  readonly forget: (request: AuditForgetRequest, actor: Actor) => Effect.Effect<AuditForgetResponse, InvalidRequest>
}>()("svc-gateway/audit/AuditLog") {
  /**
   * Needs {@link AuditRepo}. Moves the planner's old `planner_events` rows
   * into their chains first (legacy.ts), so building it needs the `SqlClient`.
   */
  static readonly layerNoDeps = Layer.effect(
    AuditLog,
    Effect.gen(function*() {
      const repo = yield* AuditRepo
      const now = Effect.map(Clock.currentTimeMillis, isoTime)

      /** Writes `action` into a claimed slot and moves the head. */
      const write = Effect.fnUntraced(function*(chain: string, slot: ChainSlot, action: unknown, occurredAt: string) {
        const recorded = redactAction(action)
        const fields = {
          plan_id: chain,
          step_index: slot.step_index,
          occurred_at: occurredAt,
          action_sha256: actionDigest(recorded),
          prev_hash: slot.prev_hash
        }
        const event_hash = eventHash(fields)
        const id = yield* repo.insert({ ...fields, action: canonicalJson(recorded), event_hash })
        yield* repo.advance(chain, event_hash)
        return { id, ...fields, action: recorded, event_hash } satisfies AuditEvent
      })

      /** Runs `effect` in the caller's transaction, else in a new one. */
      const transactional = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.flatMap(repo.inTransaction, (open) => open ? effect : repo.transaction(effect))

      const appendAt = (chain: string, action: unknown, occurredAt: string) =>
        transactional(Effect.flatMap(repo.claim(chain), (slot) => write(chain, slot, action, occurredAt)))

      const append = Effect.fn("AuditLog.append")(function*(chain: string, action: AuditAction) {
        return yield* appendAt(chain, action, yield* now)
      })

      const events = (chain: string) => Effect.map(repo.list(chain), (rows) => rows.map(toEvent))

      const exportChain = Effect.fn("AuditLog.exportChain")(function*(chain: string) {
        const stored = yield* repo.read(chain)
        // No head: the chain never had an event. A head without events: they were removed behind the gateway's back.
        if (stored.head === undefined && stored.events.length === 0) {
          return yield* new NotFound({ message: `no audit events for ${chain}` })
        }
        const chainEvents = stored.events.map(toEvent)
        return {
          plan_id: chain,
          events: chainEvents,
          chain_verification: verifyChain(chainEvents, stored.head),
          exported_at: yield* now
        } satisfies AuditReceiptBundle
      })

      const forget = Effect.fn("AuditLog.forget")(function*(request: AuditForgetRequest, actor: Actor) {
        const chain = request.entity_id
        if (isGatewayChain(chain)) {
          return yield* new InvalidRequest({
            message: `entity_id: '${chain}' is a gateway security chain (${GATEWAY_CHAIN_PREFIX}*); security chains cannot be forgotten`
          })
        }
        return yield* repo.transaction(Effect.gen(function*() {
          // The head first: an append racing this one either committed before (and is deleted or
          // anonymized here) or waits and follows the proof.
          const slot = yield* repo.claim(chain)
          let deleted = 0
          if (request.decision === "delete") deleted = yield* repo.deleteChain(chain)
          if (request.decision === "anonymize") {
            const rows = yield* repo.list(chain)
            deleted = yield* repo.eraseActions(rows.filter((r) => r.action !== null && !isProofText(r.action)).map((r) => r.id))
          }
          const proof = yield* write(chain, slot, {
            type: "forget.proof",
            decision: request.decision,
            entity_type: request.entity_type,
            entity_id: request.entity_id,
            deleted_count: deleted,
            actor
          }, yield* now)
          yield* Effect.logInfo("audit chain forgotten").pipe(
            Effect.annotateLogs({ chain, decision: request.decision, deleted_count: deleted, proof_event_id: proof.id, actor: actor.kind })
          )
          return { decision: request.decision, deleted_count: deleted, proof_event_id: proof.id } satisfies AuditForgetResponse
        }))
      })

      const moved = yield* carryOverPlannerEvents(appendAt)
      if (moved > 0) yield* Effect.logInfo("planner records moved into the audit chain").pipe(Effect.annotateLogs({ moved }))

      return AuditLog.of({
        append,
        transaction: repo.transaction,
        events,
        exportChain,
        verify: verifyChain,
        forget
      })
    })
  )

  /**
   * Wired: {@link AuditRepo} on the `SqlClient` (tables migrated), and the
   * `DomainEvents` port with the chain subscribed to every `Decision` in the
   * publisher's transaction ({@link auditDecisions}); provides both, so the
   * deciding subsystems built over it (the composition root provides it
   * beneath every subsystem) share the one port. Needs a `SqlClient`.
   */
  static readonly layer = Layer.effectDiscard(Effect.suspend(() => auditDecisions)).pipe(
    Layer.provideMerge(AuditLog.layerNoDeps),
    Layer.provide(AuditRepo.layer),
    Layer.provideMerge(DomainEvents.layer)
  )
}

/**
 * The audit chain's subscription: every `Decision` is appended to its chain
 * inside the publisher's transaction (a failure fails the publication, so
 * the decision rolls back with it). Needs {@link AuditLog} and `DomainEvents`.
 */
export const auditDecisions = Effect.gen(function*() {
  const audit = yield* AuditLog
  const events = yield* DomainEvents
  yield* events.inTransaction(Decision, ({ chain, action }) => Effect.asVoid(audit.append(chain, action)))
})
