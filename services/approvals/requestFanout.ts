/**
 * The gateway-initiated `approval.request` (reference §3.4, done better): when
 * an approval is created, every connected operator client that may decide it
 * (role `client`, admin token or `operator.approvals`) is asked, each with its
 * own `GatewayRequests.request` (request_id `approval-<id>`), concurrently and
 * in the background. The first valid answer `{approved, reason?}` resolves the
 * approval through the same conditional write as HTTP and `approval.resolve`;
 * a later answer loses that write and changes nothing (its sender already got
 * the resolved state in `approval.resolved`). An invalid answer gets an
 * `error` event `invalid_approval_decision`; a timeout (the approval's expiry),
 * a refusal (`ok:false`) or a disconnect changes nothing. Once the approval
 * leaves `pending` by any path, the asks still open are dropped after a grace
 * period (answers in flight still land on the write and lose).
 */
import { Clock, Deferred, Duration, Effect, Result, Schema } from "effect"
import { hasScope, resolvedBy } from "../auth/principal.ts"
import type { ConnectionEntry } from "../backplane/schema.ts"
import type { ConnectionRegistry } from "../ws-sessions/ConnectionRegistry.ts"
import type { EventBus } from "../ws-sessions/EventBus.ts"
import { ErrorEvent } from "../ws-sessions/events.ts"
import type { GatewayRequests } from "../ws-sessions/GatewayRequests.ts"
import { formatIssue } from "../shared/decode.ts"
import { catchStorageDefect } from "../../layers/storage/repositoryEdge.ts"
import {
  type Approval,
  type ApprovalRequestPayload,
  type ApprovalResolvedBy,
  type ApprovalRespondInput,
  WsApprovalDecision
} from "./schema.ts"

/** The scope that lets a device token decide approvals. */
export const APPROVALS_SCOPE = "operator.approvals"

// `resolved_by` of a decision: shared with pairing (services/auth/principal.ts).
export { principalName, resolvedBy } from "../auth/principal.ts"

/** True when `connection` may be asked to decide approvals. */
export const isApprover = (connection: ConnectionEntry): boolean =>
  connection.role === "client" && hasScope(connection.principal, APPROVALS_SCOPE)

/** The payload of `approval.request` for `approval`. */
export const requestPayload = (approval: Approval): ApprovalRequestPayload => ({
  approval_id: approval.id,
  plan_id: approval.plan_id,
  step_index: approval.step_index,
  prompt: approval.prompt,
  context: approval.context,
  expires_at: approval.expires_at
})

const decodeDecision = Schema.decodeUnknownResult(WsApprovalDecision)

/** The fan-out of one gateway. */
export interface RequestFanout {
  /** Asks every eligible connected client to decide `approval`; completes when every ask ended. */
  readonly ask: (approval: Approval) => Effect.Effect<void>
  /** The approval left `pending`: drop its open asks after the grace period. */
  readonly settled: (approvalId: number) => void
}

/** Builds the fan-out; `decide` is the service's respond (the one conditional write). */
export const makeRequestFanout = (options: {
  readonly registry: ConnectionRegistry["Service"]
  readonly requests: GatewayRequests["Service"]
  readonly events: EventBus["Service"]
  /** How long asks stay open after the approval was resolved another way. */
  readonly grace: Duration.Duration
  readonly decide: (id: number, input: ApprovalRespondInput, by: ApprovalResolvedBy) => Effect.Effect<unknown, unknown>
}): RequestFanout => {
  const open = new Map<number, Deferred.Deferred<void>>()

  const errorEvent = (connection: ConnectionEntry, message: string) =>
    Effect.asVoid(options.events.sendTo([connection], ErrorEvent, { code: "invalid_approval_decision", message }))

  const endedWithoutDecision = (approval: Approval, connection: ConnectionEntry, error: unknown) =>
    Effect.logDebug("approval.request ended without a decision").pipe(
      Effect.annotateLogs({ approval_id: approval.id, connection_id: connection.connectionId, cause: String(error) })
    )

  const askOne = (approval: Approval, connection: ConnectionEntry, timeout: Duration.Input) =>
    options.requests.request(connection.connectionId, "approval.request", requestPayload(approval), {
      requestId: `approval-${approval.id}`,
      timeout
    }).pipe(
      Effect.flatMap((answer) => {
        const decision = decodeDecision(answer)
        if (Result.isFailure(decision)) {
          return errorEvent(connection, `approval-${approval.id}: ${formatIssue(decision.failure.issue, "result")}`)
        }
        const input: ApprovalRespondInput = {
          decision: decision.success.approved ? "approved" : "denied",
          reason: decision.success.reason
        }
        // Uninterruptible: once an answer is being written, dropping the ask must not cut the write from its event.
        return Effect.uninterruptible(options.decide(approval.id, input, resolvedBy("ws", connection.principal)))
      }),
      Effect.catch((error) => endedWithoutDecision(approval, connection, error)),
      // The decision's write failing (the database, a defect at the repository edge) ends this ask only.
      catchStorageDefect((error) => endedWithoutDecision(approval, connection, error)),
      Effect.asVoid
    )

  // The clients connected now are asked, and the approval is registered now (before the asks' fiber
  // starts), so a resolution that comes first is not missed.
  const ask = (approval: Approval): Effect.Effect<void> => {
    const eligible = options.registry.all().filter(isApprover)
    if (eligible.length === 0 || approval.status !== "pending") return Effect.void
    const done = Deferred.makeUnsafe<void>()
    open.set(approval.id, done)
    return Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const expiresAt = approval.expires_at === null ? Number.POSITIVE_INFINITY : Date.parse(approval.expires_at)
      const timeout = Duration.millis(Math.max(Math.min(expiresAt - now, 2_147_483_647), 0))
      const dropped = Effect.andThen(Deferred.await(done), Effect.sleep(options.grace))
      yield* Effect.forEach(eligible, (connection) => Effect.raceFirst(askOne(approval, connection, timeout), dropped), {
        concurrency: "unbounded",
        discard: true
      })
    }).pipe(Effect.ensuring(Effect.sync(() => {
      if (open.get(approval.id) === done) open.delete(approval.id)
    })))
  }

  return {
    ask,
    settled: (approvalId) => {
      const done = open.get(approvalId)
      if (done !== undefined) Deferred.doneUnsafe(done, Effect.void)
    }
  }
}
