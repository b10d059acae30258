/**
 * Policy overrides ("approve always"; reference §1.4; gateway-api.md
 * "Policy", "States and transitions"; docs/policy-bundle.md "Overrides").
 *
 * Lifecycle: `active` → `revoked` (revoke) | `expired` (its `expires_at`
 * passed). A background fiber moves each active override to `expired` at
 * the moment its `expires_at` comes (it sleeps on the `Clock` until the
 * earliest one, is woken by every create, and re-reads at least every 60 s
 * for overrides other instances created). Every change is stored first, then
 * published (`policy_override.created|revoked|expired {override}`, audience
 * operator.admin).
 *
 * Every change also publishes the decision
 * `policy_override.created|revoked|expired` (`gateway.policy_overrides`
 * audit chain) in the transaction of its write (docs/audit.md).
 *
 * Storage failures are defects (500 `internal_error` over HTTP): the
 * methods' error channels hold only the client's mistakes.
 *
 * @module
 */
import { transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { Cause, Clock, Context, Duration, Effect, Layer, Queue, Result } from "effect"
import { SqlClient } from "effect/sql"
import { AuditChains, Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { BackgroundJobs } from "../backplane/BackgroundJobs.ts"
import { makeDecoder } from "../shared/decode.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { overrideCursor } from "./cursor.ts"
import { PolicyOverrideCreated, PolicyOverrideExpired, PolicyOverrideRevoked } from "./events.ts"
import { PolicyOverrideRepo, type PolicyOverrideRow, toPolicyOverride } from "./PolicyOverrideRepo.ts"
import {
  DEFAULT_OVERRIDE_LIST_LIMIT,
  type PolicyOverride,
  PolicyOverrideCreateRequest,
  type PolicyOverrideListRequest,
  type PolicyOverrideListResponse
} from "./schema.ts"
import { isoTime as iso } from "../shared/time.ts"

/** What creating an override needs (the body of `POST /policy/overrides`). */
export interface PolicyOverrideCreateInput {
  readonly agent_id: string
  readonly workspace_id?: string | undefined
  readonly tool_id: string
  readonly pattern: string
  readonly created_by?: unknown
  readonly created_from_approval_id?: number | undefined
  readonly created_from_policy_snapshot_id?: string | undefined
  /** ISO 8601; absent or null: never expires. */
  readonly expires_at?: string | null | undefined
}

/** What revoking an override needs (the body of `POST /policy/overrides/revoke`, plus who revokes). */
export interface PolicyOverrideRevokeInput {
  readonly policy_override_id: string
  readonly reason?: string | undefined
  /** Free-form JSON describing who revoked it (HTTP: `{kind: "http"}`); never a token. */
  readonly revoked_by?: unknown
}

/** Which overrides may apply to a tool call. */
export interface ActiveOverrideQuery {
  readonly agent_id: string
  readonly tool_id: string
  /** The call's workspace; overrides without a workspace apply everywhere. */
  readonly workspace_id?: string | undefined
}

/** Longest sleep of the expiry fiber between two reads, so overrides created by other instances expire on time too. */
export const EXPIRY_RECHECK = Duration.seconds(60)

/** The expiry loop's name as a background job (`BackgroundJobs.singleton`: one instance where a cluster runs). */
export const EXPIRY_JOB = "policy-overrides.expiry"

const validateCreate = makeDecoder(PolicyOverrideCreateRequest)

/** The audit action of an override's change: its identity and terms. */
const auditAction = (type: string, row: PolicyOverrideRow) => ({
  type,
  policy_override_id: row.policy_override_id,
  agent_id: row.agent_id,
  workspace_id: row.workspace_id,
  tool_id: row.tool_id,
  pattern: row.pattern,
  created_from_approval_id: row.created_from_approval_id,
  expires_at: row.expires_at,
  ...(type === "policy_override.created" ? { created_by: row.created_by } : {}),
  ...(type === "policy_override.revoked" ? { revoked_by: row.revoked_by, revoked_reason: row.revoked_reason } : {})
})


/** The override store. */
export class PolicyOverrides extends Context.Service<PolicyOverrides, {
  /**
   * Creates an active override, persists it, then publishes
   * `policy_override.created {override}`. The input is validated like the
   * HTTP body (`PolicyOverrideCreateRequest`: agent id without `:`, workspace
   * a DNS label, pattern 1..1024 characters, …) and `expires_at`, when set,
   * must lie in the future; it is stored normalised to UTC milliseconds.
   * Fails with `InvalidRequest` (400) naming the field.
   */
  readonly create: (input: PolicyOverrideCreateInput) => Effect.Effect<PolicyOverride, InvalidRequest>
  /** The override `id` in any status, or `undefined`. */
  readonly get: (id: string) => Effect.Effect<PolicyOverride | undefined>
  /**
   * A page of overrides, newest first (`created_at DESC`, then id), filtered
   * by agent, tool and status; `limit` 1..500 (default 100). `next_cursor` is
   * set when more remain; pass it back as `cursor`. An unknown cursor fails
   * with `InvalidRequest` (400).
   */
  readonly list: (request: PolicyOverrideListRequest) => Effect.Effect<PolicyOverrideListResponse, InvalidRequest>
  /**
   * Revokes an active override (`revoked_at` now, `revoked_by`,
   * `revoked_reason`), then publishes `policy_override.revoked {override}`.
   * Fails with `NotFound` (404) when it does not exist or is not active.
   */
  readonly revoke: (input: PolicyOverrideRevokeInput) => Effect.Effect<PolicyOverride, NotFound>
  /**
   * The active overrides of `agent_id` for `tool_id` that apply in the
   * workspace and have not reached `expires_at`, oldest first (what
   * `PolicyBundle.evaluateToolCall` matches against).
   */
  readonly activeFor: (query: ActiveOverrideQuery) => Effect.Effect<ReadonlyArray<PolicyOverride>>
  /**
   * Moves every active override whose `expires_at` has come to `expired` and
   * publishes `policy_override.expired` for each; returns them. The
   * background fiber calls it; exposed for operations and tests.
   */
  readonly expireDue: Effect.Effect<ReadonlyArray<PolicyOverride>>
}>()("svc-gateway/policy-bundle/PolicyOverrides") {
  /** Needs {@link PolicyOverrideRepo}, the `EventBus`, `DomainEvents` and a `SqlClient`; runs the expiry fiber for the layer's lifetime. */
  static readonly layerNoDeps = Layer.effect(
    PolicyOverrides,
    Effect.gen(function*() {
      const repo = yield* PolicyOverrideRepo
      const bus = yield* EventBus
      const sql = yield* SqlClient.SqlClient
      const transaction = transactionAtEdge(sql.withTransaction)
      const events = yield* DomainEvents
      const audited = (type: string, rows: ReadonlyArray<PolicyOverrideRow>) =>
        Effect.forEach(rows, (row) => events.publish(Decision, { chain: AuditChains.policyOverrides, action: auditAction(type, row) }), {
          discard: true
        })
      const wake = yield* Queue.dropping<void>(1)
      const now = Effect.map(Clock.currentTimeMillis, iso)

      const create = Effect.fn("PolicyOverrides.create")(function*(input: PolicyOverrideCreateInput) {
        const decoded = validateCreate(input)
        if (Result.isFailure(decoded)) return yield* new InvalidRequest({ message: decoded.failure })
        const request = decoded.success
        const at = yield* Clock.currentTimeMillis
        let expiresAt: string | null = null
        if (request.expires_at !== undefined && request.expires_at !== null) {
          const ms = Date.parse(request.expires_at)
          if (ms <= at) return yield* new InvalidRequest({ message: "expires_at: must be later than the current time" })
          expiresAt = iso(ms)
        }
        const row: PolicyOverrideRow = {
          policy_override_id: crypto.randomUUID(),
          status: "active",
          created_at: iso(at),
          created_by: request.created_by ?? null,
          agent_id: request.agent_id,
          workspace_id: request.workspace_id ?? null,
          tool_id: request.tool_id,
          pattern: request.pattern,
          created_from_approval_id: request.created_from_approval_id ?? null,
          created_from_policy_snapshot_id: request.created_from_policy_snapshot_id ?? null,
          expires_at: expiresAt,
          revoked_at: null,
          revoked_by: null,
          revoked_reason: null
        }
        yield* transaction(Effect.andThen(repo.insert(row), audited("policy_override.created", [row])))
        const override = toPolicyOverride(row)
        yield* Effect.logInfo("policy override created").pipe(Effect.annotateLogs({
          policy_override_id: row.policy_override_id,
          agent_id: row.agent_id,
          tool_id: row.tool_id,
          expires_at: expiresAt ?? "never"
        }))
        // Announced once committed (at once outside a transaction; after it when "approve always" creates it).
        yield* sql.afterCommit(Effect.gen(function*() {
          yield* bus.publish(PolicyOverrideCreated, { override })
          if (expiresAt !== null) yield* Queue.offer(wake, undefined)
        }))
        return override
      })

      const list = Effect.fn("PolicyOverrides.list")(function*(request: PolicyOverrideListRequest) {
        const position = request.cursor === undefined ? undefined : overrideCursor.decode(request.cursor)
        if (request.cursor !== undefined && position === undefined) {
          return yield* new InvalidRequest({ message: "cursor: not a cursor of this list (pass next_cursor as it was returned)" })
        }
        const limit = request.limit ?? DEFAULT_OVERRIDE_LIST_LIMIT
        const rows = yield* repo.list({ agent_id: request.agent_id, tool_id: request.tool_id, status: request.status, limit: limit + 1, after: position && { created_at: position.createdAt, policy_override_id: position.id } })
        const page = rows.slice(0, limit)
        const last = page[page.length - 1]
        return {
          overrides: page.map(toPolicyOverride),
          ...(rows.length > limit && last !== undefined ? { next_cursor: overrideCursor.encode(last.created_at, last.policy_override_id) } : {})
        } satisfies PolicyOverrideListResponse as PolicyOverrideListResponse
      })

      const revoke = Effect.fn("PolicyOverrides.revoke")(function*(input: PolicyOverrideRevokeInput) {
        const revokedAt = yield* now
        const row = yield* transaction(Effect.tap(
          repo.revoke({
            policy_override_id: input.policy_override_id,
            revoked_at: revokedAt,
            revoked_by: input.revoked_by ?? null,
            revoked_reason: input.reason ?? null
          }),
          (revoked) => revoked === undefined ? Effect.void : audited("policy_override.revoked", [revoked])
        ))
        if (row === undefined) return yield* new NotFound({ message: "override not found or not active" })
        const override = toPolicyOverride(row)
        yield* Effect.logInfo("policy override revoked").pipe(Effect.annotateLogs({ policy_override_id: row.policy_override_id }))
        yield* bus.publish(PolicyOverrideRevoked, { override })
        return override
      })

      const expireDue = Effect.gen(function*() {
        const at = yield* now
        const rows = yield* transaction(Effect.tap(repo.expireDue(at), (expired) => audited("policy_override.expired", expired)))
        const expired = rows.map(toPolicyOverride)
        for (const override of expired) {
          yield* Effect.logInfo("policy override expired").pipe(Effect.annotateLogs({ policy_override_id: override.policy_override_id }))
          yield* bus.publish(PolicyOverrideExpired, { override })
        }
        return expired
      })

      // One round of the expiry fiber: expire what is due, then sleep until the next expiry
      // (at most EXPIRY_RECHECK) or until a create wakes it up.
      const expiryRound = Effect.gen(function*() {
        yield* expireDue
        const next = yield* repo.nextExpiry
        const current = yield* Clock.currentTimeMillis
        const wait = next === undefined
          ? EXPIRY_RECHECK
          : Duration.min(Duration.millis(Math.max(0, Date.parse(next) - current)), EXPIRY_RECHECK)
        yield* Effect.raceFirst(Effect.sleep(wait), Queue.take(wake))
      }).pipe(
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logError("policy override expiry failed; retrying in 5 s").pipe(
              Effect.annotateLogs({ cause: Cause.pretty(cause) }),
              Effect.andThen(Effect.sleep(Duration.seconds(5)))
            )
        )
      )
      yield* (yield* BackgroundJobs).singleton({ name: EXPIRY_JOB, run: Effect.forever(expiryRound) })

      return PolicyOverrides.of({
        create,
        get: Effect.fn("PolicyOverrides.get")((id) => Effect.map(repo.findById(id), (row) => (row === undefined ? undefined : toPolicyOverride(row)))),
        list,
        revoke,
        activeFor: Effect.fn("PolicyOverrides.activeFor")(function*(query) {
          const rows = yield* repo.activeFor({
            agent_id: query.agent_id,
            tool_id: query.tool_id,
            workspace_id: query.workspace_id,
            now: yield* now
          })
          return rows.map(toPolicyOverride)
        }),
        expireDue
      })
    })
  )

  /**
   * Wired: overrides in the database (`PolicyOverrideRepo`, tables migrated)
   * and the `EventBus`. Needs a `SqlClient` and `DomainEvents` (the
   * composition root provides it, with the audit chain subscribed).
   */
  static readonly layer = PolicyOverrides.layerNoDeps.pipe(
    Layer.provide(PolicyOverrideRepo.layer),
    Layer.provide(EventBus.layer)
  )
}
