/**
 * Approvals (gateway-api.md "Approvals"; reference §3; docs/approvals.md).
 *
 * `pending` → `approved` | `denied` (respond), `expired` (its `expires_at`
 * passed: the expiry fiber, at that moment), `cancelled` (its plan or run was
 * cancelled). Terminal states never change. Every transition is one
 * conditional write, persisted before `approval.resolved` is published, so
 * concurrent resolvers get exactly one winner and the others the idempotent
 * answer (the approval as it is, no side effect, no event).
 *
 * Audit (docs/audit.md): creation (`approval.requested`) and every
 * transition (`approval.approved|denied|expired|cancelled`) publish a
 * `Decision` for the approval's plan chain (its `plan_id`) in the
 * transaction of the write, with the ids of the overrides an "approve
 * always" created. Every creation is then published as the `ApprovalCreated`
 * domain event, and every transition as `ApprovalResolved` (domainEvents.ts),
 * for the subsystems that react to them.
 *
 * @module
 */
import { Clock, Context, Duration, Effect, Layer, Result } from "effect"
import { SqlClient } from "effect/sql"
import { GatewayConfig } from "../../layers/config.ts"
import { Decision, type DecisionAction } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { BackgroundJobs } from "../backplane/BackgroundJobs.ts"
import { PolicyOverrides } from "../policy-bundle/PolicyOverrides.ts"
import type { PolicyOverride } from "../policy-bundle/schema.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { ConnectionRegistry } from "../ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { GatewayRequests } from "../ws-sessions/GatewayRequests.ts"
import { ApprovalsRepo } from "./ApprovalsRepo.ts"
import { approvalCursor } from "./cursor.ts"
import { plannedOverrides } from "./decisions.ts"
import * as ApprovalDomainEvents from "./domainEvents.ts"
import { ApprovalRequested, ApprovalResolved } from "./events.ts"
import { EXPIRY_JOB, makeExpiry } from "./expiry.ts"
import { makeRequestFanout } from "./requestFanout.ts"
import {
  type Approval,
  type ApprovalKind,
  type ApprovalListRequest,
  type ApprovalListResult,
  type ApprovalResolvedBy,
  type ApprovalRespondInput,
  type ApprovalRespondResponse,
  type ApprovalScope,
  type ApprovalStatus,
  DEFAULT_APPROVAL_PAGE
} from "./schema.ts"
import { isoTime as iso } from "../shared/time.ts"

export { principalName, resolvedBy } from "./requestFanout.ts"

/** What creating an approval needs. */
export interface ApprovalCreateInput {
  readonly kind: ApprovalKind
  readonly plan_id: string
  readonly step_index: number
  readonly prompt: string
  /** Any JSON; default `{}`. `context.policy.suggested_overrides` feeds "approve always". */
  readonly context?: unknown
  readonly scope?: ApprovalScope | undefined
  /** Seconds until it expires (> 0, at most 10 years); default `SVC_APPROVAL_TTL_S` (86400). */
  readonly ttlSeconds?: number | undefined
}

/** Approvals settings, from `GatewayConfig`. */
export class ApprovalsConfig extends Context.Service<ApprovalsConfig, {
  /** Default lifetime of an approval, in seconds (`SVC_APPROVAL_TTL_S`). */
  readonly ttlSeconds: number
  /** How long `approval.request` asks stay open after the approval was resolved another way. */
  readonly requestGrace: Duration.Duration
}>()("svc-gateway/approvals/ApprovalsConfig") {
  /** `ttlSeconds` from `SVC_APPROVAL_TTL_S`; a 30 s grace. */
  static readonly layer = Layer.effect(
    ApprovalsConfig,
    Effect.map(GatewayConfig, (settings) => ({ ttlSeconds: settings.approvalTtlSeconds, requestGrace: Duration.seconds(30) }))
  )
}

/** The audit action of an approval that left `pending` (and the overrides its "approve always" created). */
const transitionAction = (approval: Approval, created: ReadonlyArray<PolicyOverride> = []) => ({
  type: `approval.${approval.status}`,
  approval_id: approval.id,
  kind: approval.kind,
  step_index: approval.step_index,
  resolution: approval.resolution,
  ...(approval.scope !== undefined ? { scope: approval.scope } : {}),
  ...(created.length > 0 ? { created_override_ids: created.map((o) => o.policy_override_id) } : {})
})

/** Longest lifetime a creator may ask for: 10 years. */
const MAX_TTL_SECONDS = 10 * 365 * 86_400


/** The approvals service. */
export class Approvals extends Context.Service<Approvals, {
  /**
   * Creates a pending approval, persists it, then announces it
   * (`approval.requested` event and the gateway-initiated `approval.request`
   * to eligible operator clients, in the background). Storage failures and an
   * invalid `ttlSeconds` are defects.
   */
  readonly create: (input: ApprovalCreateInput) => Effect.Effect<Approval>
  /** The approval; `NotFound` when unknown. */
  readonly get: (id: number) => Effect.Effect<Approval, NotFound>
  /** Every approval with `status`, by `created_at` then `id` (`GET /approvals`). */
  readonly listByStatus: (status: ApprovalStatus) => Effect.Effect<ReadonlyArray<Approval>>
  /** One page of `approval.list`; an invalid cursor is `InvalidRequest`. */
  readonly list: (request: ApprovalListRequest) => Effect.Effect<ApprovalListResult, InvalidRequest>
  /**
   * Approves or denies a pending approval (with "approve always" overrides
   * when asked). Already terminal: the approval unchanged, nothing else.
   * `InvalidRequest` when an "approve always" rule fails; `NotFound` when unknown.
   */
  readonly respond: (
    id: number,
    input: ApprovalRespondInput,
    by: ApprovalResolvedBy
  ) => Effect.Effect<ApprovalRespondResponse, NotFound | InvalidRequest>
  /** Cancels the pending approvals of a plan (the workflow engine's hook); returns them, each announced. */
  readonly cancelForPlan: (planId: string, reason?: string) => Effect.Effect<ReadonlyArray<Approval>>
  /** Cancels the pending approvals of a run; returns them, each announced. */
  readonly cancelForRun: (runId: string, reason?: string) => Effect.Effect<ReadonlyArray<Approval>>
}>()("svc-gateway/approvals/Approvals") {
  /**
   * Needs {@link ApprovalsRepo}, {@link ApprovalsConfig}, `PolicyOverrides`, `EventBus`, `ConnectionRegistry`,
   * `GatewayRequests` and `DomainEvents` (publishes `Decision` and `ApprovalResolved`).
   */
  static readonly layerNoDeps = Layer.effect(
    Approvals,
    Effect.gen(function*() {
      const repo = yield* ApprovalsRepo
      const config = yield* ApprovalsConfig
      const overrides = yield* PolicyOverrides
      const events = yield* EventBus
      const sql = yield* SqlClient.SqlClient
      const domainEvents = yield* DomainEvents
      const scope = yield* Effect.scope

      /** An audit-worthy decision about `approval`, for its plan's chain (in the caller's transaction). */
      const decided = (approval: Approval, action: DecisionAction) =>
        domainEvents.publish(Decision, { chain: approval.plan_id, action })

      /** Decides the transitions of `approvals` for their plans' chains (in plan order: one lock order for every writer). */
      const auditTransitions = (approvals: ReadonlyArray<Approval>) =>
        Effect.forEach(
          [...approvals].sort((a, b) => (a.plan_id < b.plan_id ? -1 : a.plan_id > b.plan_id ? 1 : a.id - b.id)),
          (approval) => decided(approval, transitionAction(approval)),
          { discard: true }
        )

      const eventScope = (approval: Approval) =>
        approval.scope?.run_id !== undefined ? { kind: "run", run_id: approval.scope.run_id } : undefined

      // Every transition ends here: its open approval.request asks are dropped (after the grace period) and it is
      // announced. (`fanout`, built below from `respond`, exists before anything can call this.)
      const announceResolved = (approvals: ReadonlyArray<Approval>) =>
        Effect.forEach(approvals, (approval) => {
          fanout.settled(approval.id)
          // The reactions (after commit: the caller committed already, so they run now, before it returns).
          return events.publish(ApprovalResolved, { approval }, eventScope(approval)).pipe(
            Effect.andThen(domainEvents.publish(ApprovalDomainEvents.ApprovalResolved, approval))
          )
        }, { discard: true })

      const expireDue = Effect.gen(function*() {
        const at = iso(yield* Clock.currentTimeMillis)
        const expired = yield* repo.transaction(Effect.tap(repo.expireDue(at), auditTransitions))
        yield* announceResolved(expired)
        return expired
      })

      const get = Effect.fn("Approvals.get")((id: number) =>
        Effect.flatMap(repo.get(id), (approval) =>
          approval === undefined ? Effect.fail(new NotFound({ message: `approval ${id} not found` })) : Effect.succeed(approval)))

      const respond = Effect.fn("Approvals.respond")(function*(id: number, input: ApprovalRespondInput, by: ApprovalResolvedBy) {
        const current = yield* get(id)
        if (current.status !== "pending") return { approval: current }
        const planned = plannedOverrides(current, input, by)
        if (Result.isFailure(planned)) return yield* new InvalidRequest({ message: planned.failure })
        const at = iso(yield* Clock.currentTimeMillis)
        const selected = planned.success
        // The decision, its overrides and its audit event commit together.
        const result = yield* repo.transaction(Effect.gen(function*() {
          const won = yield* repo.decide(id, { status: input.decision, at, by, reason: input.reason })
          if (won === undefined) return undefined
          const created: ReadonlyArray<PolicyOverride> = yield* Effect.forEach(selected, overrides.create)
          yield* decided(won, transitionAction(won, created))
          return { won, created }
        }))
        if (result === undefined) {
          // Lost: someone else decided it, or it is due and the expiry fiber has not run yet (do it now).
          const latest = yield* get(id)
          if (latest.status !== "pending") return { approval: latest }
          yield* expireDue
          return { approval: yield* get(id) }
        }
        yield* announceResolved([result.won])
        return result.created.length === 0 ? { approval: result.won } : { approval: result.won, created_overrides: result.created }
      })

      const fanout = makeRequestFanout({
        registry: yield* ConnectionRegistry,
        requests: yield* GatewayRequests,
        events,
        grace: config.requestGrace,
        decide: respond
      })
      const expiry = makeExpiry({ expireDue, nextExpiry: repo.nextExpiry })
      yield* (yield* BackgroundJobs).singleton({ name: EXPIRY_JOB, run: expiry.run })

      const create = Effect.fn("Approvals.create")(function*(input: ApprovalCreateInput) {
        const ttl = input.ttlSeconds ?? config.ttlSeconds
        if (!(Number.isFinite(ttl) && ttl > 0 && ttl <= MAX_TTL_SECONDS)) {
          return yield* Effect.die(new RangeError(`approval ttlSeconds must be > 0 and <= ${MAX_TTL_SECONDS}, got ${ttl}`))
        }
        const now = yield* Clock.currentTimeMillis
        const expiresAt = now + Math.round(ttl * 1000)
        const approval = yield* repo.transaction(Effect.tap(repo.insert({
          kind: input.kind,
          status: "pending",
          plan_id: input.plan_id,
          step_index: input.step_index,
          prompt: input.prompt,
          context: input.context ?? {},
          created_at: iso(now),
          expires_at: iso(expiresAt),
          resolved_at: null,
          resolved_by: null,
          reason: null,
          scope_key: input.scope?.key ?? null,
          scope_lane: input.scope?.lane ?? null,
          scope_run_id: input.scope?.run_id ?? null,
          scope_step_index: input.scope?.step_index ?? null
        }), (approval) =>
          decided(approval, {
            type: "approval.requested",
            approval_id: approval.id,
            kind: approval.kind,
            step_index: approval.step_index,
            prompt: approval.prompt,
            expires_at: approval.expires_at,
            ...(approval.scope !== undefined ? { scope: approval.scope } : {})
          })))
        // Announced once the row is committed (at once outside a transaction, e.g. the planner's): a reader
        // then sees it, and the background ask runs without the creator's transaction connection.
        yield* sql.afterCommit(Effect.gen(function*() {
          expiry.notify(expiresAt)
          yield* events.publish(ApprovalRequested, { approval }, eventScope(approval))
          yield* Effect.forkIn(fanout.ask(approval), scope)
        }))
        // Its reactions run after the creator's commit too (DomainEvents defers them; none when it rolls back).
        yield* domainEvents.publish(ApprovalDomainEvents.ApprovalCreated, approval)
        return approval
      }, Effect.orDie)

      const list = Effect.fn("Approvals.list")(function*(request: ApprovalListRequest) {
        const after = request.cursor === undefined ? undefined : approvalCursor.decode(request.cursor)
        if (request.cursor !== undefined && after === undefined) {
          return yield* new InvalidRequest({ message: "cursor: not a cursor returned by approval.list" })
        }
        const limit = request.limit ?? DEFAULT_APPROVAL_PAGE
        const rows = yield* repo.list({
          status: request.status ?? "pending",
          kinds: request.kind,
          key: request.key,
          lane: request.lane,
          runId: request.run_id,
          after,
          limit: limit + 1
        })
        const page = rows.slice(0, limit)
        return rows.length > limit ? { approvals: page, next_cursor: approvalCursor.encode(page[page.length - 1].created_at, page[page.length - 1].id) } : { approvals: page }
      })

      const cancel = (target: { readonly planId: string } | { readonly runId: string }, reason: string | undefined) =>
        Effect.gen(function*() {
          yield* expireDue // what is already due expires rather than being cancelled
          const at = iso(yield* Clock.currentTimeMillis)
          const cancelled = yield* repo.transaction(Effect.tap(repo.cancel(target, at, reason ?? "cancelled"), auditTransitions))
          yield* announceResolved(cancelled)
          return cancelled
        })

      return Approvals.of({
        create,
        get,
        listByStatus: Effect.fn("Approvals.listByStatus")((status) => repo.list({ status })),
        list,
        respond,
        cancelForPlan: Effect.fn("Approvals.cancelForPlan")((planId, reason) => cancel({ planId }, reason)),
        cancelForRun: Effect.fn("Approvals.cancelForRun")((runId, reason) => cancel({ runId }, reason))
      })
    })
  )

  /**
   * Wired: storage ({@link ApprovalsRepo}, migrated), settings, and the
   * WebSocket sessions services (event bus, registry, gateway requests) and
   * the policy-bundle subsystem's `PolicyOverrides` ("approve always");
   * shared layers are built once. Needs `GatewayConfig`, a `SqlClient` and
   * `DomainEvents` (the composition root provides it, with the audit chain
   * subscribed).
   */
  static readonly layer = Approvals.layerNoDeps.pipe(
    Layer.provide(ApprovalsRepo.layer),
    Layer.provide(ApprovalsConfig.layer),
    Layer.provide(EventBus.layer),
    Layer.provide(GatewayRequests.layer),
    Layer.provide(ConnectionRegistry.layer),
    Layer.provide(PolicyOverrides.layer)
  )
}
