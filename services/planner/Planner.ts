/**
 * The plan runner (gateway-api.md "Plan runner"; reference §6.1): turns a
 * plan request into a stored plan. Its tags become a policy check
 * (`PolicyService.check`, in process); the decision picks the outcome:
 *
 * - `allow` → `success` with the deterministic steps (steps.ts);
 * - `require_approval` → `escalate`, after creating a pending approval
 *   (`Approvals.create`);
 * - `deny` → `failure` with `policy_denied`.
 *
 * The request_id is the idempotency key: the plan is stored with its request,
 * decision and response, and the same request_id answers the stored plan
 * (`PlanConflict` when the body differs). docs/planner.md has the details.
 *
 * `execute: true` also runs the plan (execute.ts): a success at once, an
 * escalation when its approval is approved (its reaction to the
 * `ApprovalResolved` domain event, registered here), through
 * {@link PlanExecution}.
 *
 * Audit (docs/audit.md): in the plan's creating transaction it publishes,
 * for the plan's chain (its `plan_id`), the decisions
 * `policy.checked {request_id, input, decision}`, the approval's
 * `approval.requested` when it escalates, and `plan.created {request, outcome}`.
 *
 * @module
 */
import { Clock, Context, Effect, Layer, Result } from "effect"
import { SecureRandom } from "effect/crypto"
import { Approvals } from "../approvals/Approvals.ts"
import { ApprovalResolved } from "../approvals/domainEvents.ts"
import type { ApprovalKind } from "../approvals/schema.ts"
import { Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { PolicyService } from "../policy/PolicyService.ts"
import type { PolicyDecision, RuleDecision, RuleName } from "../policy/schema.ts"
import { canonicalJson } from "../shared/canonicalJson.ts"
import { InvalidRequest } from "../shared/errors.ts"
import { makePlanExecutor, withRun } from "./execute.ts"
import { PlanExecution } from "./PlanExecution.ts"
import { type PlanRecord, PlansRepo } from "./PlansRepo.ts"
import { type ActionPrimitive, PlanConflict, type PlanRequest, type PlanResponse, type PlanStatus } from "./schema.ts"
import { buildSteps, type PlanSteps } from "./steps.ts"
import { parseTags } from "./tags.ts"

/** The approval kind of the first escalating rule. */
export const KIND_BY_RULE: Readonly<Record<RuleName, ApprovalKind>> = {
  spend_limit: "spend",
  pii_guardrail: "pii",
  legal_compliance: "policy",
  connector_scope: "policy"
}

const STATUS_BY_DECISION: Readonly<Record<PolicyDecision["decision"], PlanStatus>> = {
  allow: "success",
  require_approval: "escalate",
  deny: "failure"
}

const explain = (rules: ReadonlyArray<RuleDecision>): string => rules.map((r) => `${r.rule}: ${r.detail}`).join("\n")

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString("hex")

/** The request as stored and compared: `execute: false` is the same request as no `execute`. */
const storedRequest = (request: PlanRequest): PlanRequest => {
  if (request.execute === true) return request
  const { execute: _, ...rest } = request
  return rest
}

/** True for an approval the planner created (its `context.source`). */
const isPlannerApproval = (context: unknown): boolean =>
  typeof context === "object" && context !== null && (context as { source?: unknown }).source === "planner"

/** The plan runner. */
export class Planner extends Context.Service<Planner, {
  /**
   * Plans `request` (already decoded). Fails with `InvalidRequest` (400) for
   * a malformed tag, and `PlanConflict` (409) when its request_id was used
   * for a different request; the same request again answers the stored plan.
   */
  readonly plan: (request: PlanRequest) => Effect.Effect<PlanResponse, InvalidRequest | PlanConflict>
  /** The stored plan with this id, or `undefined`. */
  readonly find: (planId: string) => Effect.Effect<PlanRecord | undefined>
}>()("svc-gateway/planner/Planner") {
  /**
   * Needs {@link PolicyService}, {@link Approvals}, {@link PlansRepo},
   * `DomainEvents` and `SecureRandom` (ids); uses {@link PlanExecution} for `execute: true`.
   * Reacts to `ApprovalResolved` (after commit, before the resolver returns),
   * and checks the plans still waiting to run in the background.
   */
  static readonly layerNoDeps = Layer.effect(
    Planner,
    Effect.gen(function*() {
      const policy = yield* PolicyService
      const approvals = yield* Approvals
      const repo = yield* PlansRepo
      const events = yield* DomainEvents
      const random = yield* SecureRandom.SecureRandom
      const executor = makePlanExecutor({ repo, approvals, execution: yield* PlanExecution })

      // A planner approval that left pending: approved starts its plan's run (if asked), anything else declines it.
      yield* events.afterCommit(ApprovalResolved, (approval) =>
        isPlannerApproval(approval.context) ? Effect.orDie(Effect.asVoid(executor.startIfDue(approval.plan_id))) : Effect.void
      )
      yield* Effect.forkIn(
        executor.startAllDue.pipe(Effect.catchCause((cause) => Effect.logWarning("plan execution check failed", cause))),
        yield* Effect.scope
      )

      /** The answer with the plan's run, starting it first when it is due. */
      const settle = (response: PlanResponse) => Effect.map(executor.startIfDue(response.plan_id), (runId) => withRun(response, runId))

      /** The stored answer to a repeated request_id. */
      const replay = (stored: PlanRecord, requestJson: string): Effect.Effect<PlanResponse, PlanConflict> => {
        if (stored.request_json !== requestJson) {
          return Effect.fail(
            new PlanConflict({
              message: `request_id ${stored.request_id} was already used for a different request (plan ${stored.plan_id})`
            })
          )
        }
        // `response_json` is null only inside the creating transaction, which readers never see.
        return stored.response_json === null
          ? Effect.die(new Error(`plan ${stored.plan_id} has no stored response`))
          : Effect.succeed(stored.response_json)
      }

      const escalate = Effect.fnUntraced(function*(
        request: PlanRequest,
        planId: string,
        decision: PolicyDecision,
        plan: PlanSteps
      ) {
        const escalating = decision.rules.filter((r) => r.outcome === "require_approval")
        const kind = KIND_BY_RULE[escalating[0].rule] ?? "other"
        // Only a spend that alone needs approval waits at its Pay step; anything else is approved before step 0.
        const onlySpend = escalating.length === 1 && escalating[0].rule === "spend_limit"
        const stepIndex = onlySpend && plan.payIndex !== undefined ? plan.payIndex : 0
        const prompt = `Approve the plan for request ${request.request_id}? ${plan.synopsis} Needs approval: ${
          escalating.map((r) => r.detail).join(" ")
        }`
        // Inside the plan's transaction: the approval row commits or rolls back with the plan
        // (Approvals.create must defer its announcements to the commit, docs/planner.md).
        const approval = yield* approvals.create({
          kind,
          plan_id: planId,
          step_index: stepIndex,
          prompt,
          context: { source: "planner", request_id: request.request_id, policy_decision: decision, tags: request.tags }
        })
        const action: ActionPrimitive = {
          type: "Confirm",
          args: { prompt, kind, rules: escalating.map((r) => r.rule) }
        }
        return {
          status: "escalate" as const,
          escalation: {
            step_index: stepIndex,
            action,
            rationale: explain(escalating),
            expires_at: approval.expires_at,
            approval_id: approval.id
          }
        }
      })

      const outcome = (request: PlanRequest, planId: string, decision: PolicyDecision, plan: PlanSteps) => {
        switch (decision.decision) {
          case "allow":
            return Effect.succeed({ status: "success" as const, steps: plan.steps, summary: { synopsis: plan.synopsis } })
          case "deny":
            return Effect.succeed({
              status: "failure" as const,
              error: {
                code: "policy_denied" as const,
                message: "Policy denied the plan",
                detail: explain(decision.rules.filter((r) => r.outcome === "deny")),
                retryable: false
              }
            })
          case "require_approval":
            return escalate(request, planId, decision, plan)
        }
      }

      const plan = Effect.fn("Planner.plan")(function*(sent: PlanRequest) {
        const request = storedRequest(sent)
        const tags = parseTags(request.tags, request.request_id)
        if (Result.isFailure(tags)) return yield* new InvalidRequest({ message: tags.failure })
        const requestJson = canonicalJson(request)
        const stored = yield* repo.findByRequestId(request.request_id)
        if (stored !== undefined) return yield* settle(yield* replay(stored, requestJson))

        const decision = yield* policy.check(tags.success.policy)
        const steps = buildSteps(request, tags.success.spend)
        const createdAt = new Date(yield* Clock.currentTimeMillis).toISOString()
        const planId = `plan-${hex(yield* random.randomBytes(16))}`
        const traceId = yield* random.uuidV4()

        // Claim the request_id first: a concurrent duplicate waits on the unique index, then
        // writes nothing and reads the winner's plan, so only one approval is ever created.
        const created = yield* repo.transaction(Effect.gen(function*() {
          const claimed = yield* repo.claim({
            plan_id: planId,
            request_id: request.request_id,
            status: STATUS_BY_DECISION[decision.decision],
            request_json: requestJson,
            decision_json: decision,
            created_at: createdAt
          })
          if (!claimed) return undefined
          yield* events.publish(Decision, {
            chain: planId,
            action: { type: "policy.checked", request_id: request.request_id, input: tags.success.policy, decision }
          })
          const response: PlanResponse = {
            plan_id: planId,
            request_id: request.request_id,
            created_at: createdAt,
            trace_id: traceId,
            ...(yield* outcome(request, planId, decision, steps))
          }
          yield* repo.complete(planId, response)
          if (request.execute === true && response.status !== "failure") yield* repo.requestExecution(planId)
          yield* events.publish(Decision, { chain: planId, action: { type: "plan.created", request, outcome: response } })
          return response
        }))
        // The run starts after the commit: a run of a rolled-back plan must never exist.
        if (created !== undefined) return request.execute === true ? yield* settle(created) : created
        const winner = yield* repo.findByRequestId(request.request_id)
        if (winner === undefined) return yield* Effect.die(new Error(`plan for ${request.request_id} vanished`))
        return yield* settle(yield* replay(winner, requestJson))
      })

      return Planner.of({ plan, find: repo.findByPlanId })
    })
  )

  /**
   * Wired for the gateway: its repository (SQL, migrated), the policy
   * engine, secure ids and the approvals subsystem (shared layers are built
   * once). Needs `GatewayConfig`, a `SqlClient` and `DomainEvents` (the
   * composition root provides it, with the audit chain subscribed).
   */
  static readonly layer = Planner.layerNoDeps.pipe(
    Layer.provide(Layer.mergeAll(PlansRepo.layer, PolicyService.layer, SecureRandom.layerWebCrypto, Approvals.layer))
  )
}
