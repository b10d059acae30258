/**
 * The guardrails, for agents that run elsewhere (issue 25 §6; docs/agent.md
 * "Governing agents that run elsewhere (MCP)"): what the MCP tools at `/mcp`
 * do, over the other subsystems' services. The transport
 * (transport/mcp.ts) authenticates the caller and checks its scopes; this
 * service does the work.
 *
 * - `policyCheck`: `PolicyService.check`, exactly what `POST /policy/check` answers.
 * - `requestApproval`: an approval of kind `mcp_request` on the
 *   {@link MCP_CHAIN} chain (its prompt, the caller's context under
 *   `context.request`, who asked under `context.requested_by`), expiring at
 *   `timeout_ms`; the operator sees it like any other (`approval.requested`,
 *   `approval.request` to operator clients, `GET /approvals`). The call
 *   waits for the approvals service's own `ApprovalResolved` domain event
 *   (no polling): `approved`, `denied` (a cancellation also reads as
 *   `denied`), or `expired` when the expiry job expired it at the timeout.
 *   If the event never reaches this instance, the approval is read once
 *   {@link RESOLUTION_GRACE} after the timeout.
 * - `memorySearch` / `memoryWrite`: `Memory.search` / `Memory.create`.
 * - `listApprovals` / `listRuns` / `listNodes` (read-only, for an operator's
 *   assistant, issue 26 §2): what `GET /approvals` (pending by default),
 *   `GET /workflow/runs` (a `NotFound` while the engine API is off, like the
 *   route) and `GET /nodes` answer.
 * - `auditAppend`: the agent's own action record as a `Decision` on its
 *   plan's chain (`plan_id`, a plan `POST /plan` stored); a `gateway.*`
 *   chain or a type of the gateway's own ({@link RESERVED_ACTION_PREFIXES})
 *   is `InvalidRequest`, an unknown plan `NotFound`.
 *
 * @module
 */
import { Context, Deferred, Duration, Effect, Layer, Option } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { Approvals } from "../approvals/Approvals.ts"
import { ApprovalResolved } from "../approvals/domainEvents.ts"
import type { Approval, ApprovalListResponse, ApprovalStatus } from "../approvals/schema.ts"
import { Decision, GATEWAY_CHAIN_PREFIX, isGatewayChain } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { Memory } from "../memory/Memory.ts"
import type { MemoryItemInput, MemoryItemResult, MemorySearchResult } from "../memory/schema.ts"
import { Nodes } from "../nodes/Nodes.ts"
import type { NodeListResponse } from "../nodes/schema.ts"
import { PlansRepo } from "../planner/PlansRepo.ts"
import { PolicyService } from "../policy/PolicyService.ts"
import type { PolicyCheckRequest, PolicyDecision } from "../policy/schema.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import type { Actor } from "../shared/principal.ts"
import type { WorkflowRunListRequest, WorkflowRunListResponse } from "../workflow/runs/schema.ts"
import { Workflow, WorkflowLive } from "../workflow/Workflow.ts"
import type {
  McpApprovalDecision,
  McpApprovalRequest,
  McpApprovalResult,
  McpAuditAppendRequest,
  McpAuditAppendResult,
  McpMemorySearchRequest
} from "./schema.ts"

/** The gateway-wide audit chain of the approvals requested over MCP (they belong to no plan). */
export const MCP_CHAIN = `${GATEWAY_CHAIN_PREFIX}mcp`

/**
 * Action types the gateway itself records in a plan's chain (policy check,
 * plan, approvals, runs, forget proofs): an agent's record may not take
 * them, so what the gateway decided cannot be forged by `audit_append`.
 */
export const RESERVED_ACTION_PREFIXES: ReadonlyArray<string> = ["policy.", "plan.", "approval.", "run.", "forget.", "auth.", "authz."]

/** How long after `timeout_ms` a waiting `request_approval` reads its approval if no resolution event came. */
export const RESOLUTION_GRACE = Duration.seconds(5)

/** The answer of an approval that left `pending`; `undefined` while it is pending. */
export const decisionOf = (approval: Approval): McpApprovalDecision | undefined => {
  switch (approval.status) {
    case "pending":
      return undefined
    case "approved":
      return "approved"
    case "expired":
      return "expired"
    default:
      // denied, or cancelled (nothing cancels the MCP chain's approvals today): not approved.
      return "denied"
  }
}

/** The MCP tools' operations. */
export class McpGateway extends Context.Service<McpGateway, {
  /** `policy_check`: the decision `POST /policy/check` answers for `request`. */
  readonly policyCheck: (request: PolicyCheckRequest) => Effect.Effect<PolicyDecision>
  /**
   * `request_approval`: creates an approval (kind `mcp_request`, chain
   * {@link MCP_CHAIN}, expiring after `timeout_ms`) for `actor` and waits
   * for its resolution: `{approval_id, decision}`.
   */
  readonly requestApproval: (request: McpApprovalRequest, actor: Actor) => Effect.Effect<McpApprovalResult>
  /** `memory_search`: `Memory.search` over `agent_id`'s items (default `default`). */
  readonly memorySearch: (request: McpMemorySearchRequest) => Effect.Effect<MemorySearchResult, InvalidRequest>
  /** `memory_write`: `Memory.create` of `item`. */
  readonly memoryWrite: (item: MemoryItemInput) => Effect.Effect<MemoryItemResult>
  /**
   * `audit_append`: appends `action` (with `source: "mcp"` and `actor`) to
   * plan `plan_id`'s chain. `InvalidRequest` for a `gateway.*` chain or a
   * reserved action type, `NotFound` for a plan the planner does not know.
   */
  readonly auditAppend: (request: McpAuditAppendRequest, actor: Actor) => Effect.Effect<McpAuditAppendResult, InvalidRequest | NotFound>
  /** `list_approvals`: the approvals with `status` (default `pending`), oldest first, as `GET /approvals`. */
  readonly listApprovals: (status: ApprovalStatus | undefined) => Effect.Effect<ApprovalListResponse>
  /**
   * `list_runs`: one page of workflow runs, newest first, as `GET /workflow/runs`; `NotFound` while the engine API
   * is off (`SVC_ENGINE_API_ENABLED=0`), `InvalidRequest` for a cursor this gateway did not issue.
   */
  readonly listRuns: (request: WorkflowRunListRequest) => Effect.Effect<WorkflowRunListResponse, InvalidRequest | NotFound>
  /** `list_nodes`: every paired node with its connection state, as `GET /nodes`. */
  readonly listNodes: () => Effect.Effect<NodeListResponse>
}>()("svc-gateway/mcp/McpGateway") {
  /**
   * Needs `PolicyService`, `Approvals`, `Memory`, `PlansRepo`, `Workflow`,
   * `Nodes`, `GatewayConfig` and `DomainEvents` (reacts to
   * `ApprovalResolved` after commit; publishes `Decision`).
   */
  static readonly layerNoDeps = Layer.effect(
    McpGateway,
    Effect.gen(function*() {
      const policy = yield* PolicyService
      const approvals = yield* Approvals
      const memory = yield* Memory
      const plans = yield* PlansRepo
      const domainEvents = yield* DomainEvents
      const workflow = yield* Workflow
      const nodes = yield* Nodes
      const { engineApiEnabled } = yield* GatewayConfig

      // The approvals this instance waits for, by id: completed by the approvals service's resolution event.
      const waiting = new Map<number, Deferred.Deferred<Approval>>()
      yield* domainEvents.afterCommit(ApprovalResolved, (approval) =>
        Effect.suspend(() => {
          const deferred = waiting.get(approval.id)
          return deferred === undefined ? Effect.void : Effect.asVoid(Deferred.succeed(deferred, approval))
        }))

      const requestApproval = Effect.fn("McpGateway.requestApproval")(function*(request: McpApprovalRequest, actor: Actor) {
        const approval = yield* approvals.create({
          kind: "mcp_request",
          plan_id: MCP_CHAIN,
          step_index: 0,
          prompt: request.prompt,
          context: { source: "mcp", requested_by: actor, request: request.context ?? {} },
          ttlSeconds: request.timeout_ms / 1000
        })
        const deferred = yield* Deferred.make<Approval>()
        waiting.set(approval.id, deferred)
        return yield* Effect.gen(function*() {
          // Resolved between its creation and the registration above: the row says so.
          const current = yield* Effect.orDie(approvals.get(approval.id))
          const settled = decisionOf(current)
          if (settled !== undefined) return { approval_id: approval.id, decision: settled }
          const resolved = yield* Deferred.await(deferred).pipe(
            Effect.timeoutOption(Duration.sum(Duration.millis(request.timeout_ms), RESOLUTION_GRACE))
          )
          const final = Option.isSome(resolved) ? resolved.value : yield* Effect.orDie(approvals.get(approval.id))
          // Still pending after the grace (the expiry job is behind): it is expired by then.
          return { approval_id: approval.id, decision: decisionOf(final) ?? "expired" }
        }).pipe(Effect.ensuring(Effect.sync(() => waiting.delete(approval.id))))
      })

      const auditAppend = Effect.fn("McpGateway.auditAppend")(function*(request: McpAuditAppendRequest, actor: Actor) {
        if (isGatewayChain(request.plan_id)) {
          return yield* new InvalidRequest({ message: `plan_id: ${GATEWAY_CHAIN_PREFIX}* chains are the gateway's own` })
        }
        const reserved = RESERVED_ACTION_PREFIXES.find((prefix) => request.action.type.startsWith(prefix))
        if (reserved !== undefined) {
          return yield* new InvalidRequest({ message: `action.type: ${reserved}* types are the gateway's own decisions` })
        }
        const plan = yield* plans.findByPlanId(request.plan_id)
        if (plan === undefined) return yield* new NotFound({ message: `plan ${request.plan_id} not found` })
        yield* domainEvents.publish(Decision, {
          chain: request.plan_id,
          action: { ...request.action, type: request.action.type, source: "mcp", actor }
        })
        return { plan_id: request.plan_id, type: request.action.type, appended: true } as const
      })

      return McpGateway.of({
        policyCheck: Effect.fn("McpGateway.policyCheck")((request) => policy.check(request)),
        requestApproval,
        memorySearch: Effect.fn("McpGateway.memorySearch")((request) =>
          memory.search({
            query: request.query,
            ...(request.agent_id !== undefined ? { filter: { agent_id: request.agent_id } } : {}),
            ...(request.limit !== undefined ? { limit: request.limit } : {})
          })),
        memoryWrite: Effect.fn("McpGateway.memoryWrite")((item) => memory.create(item)),
        auditAppend,
        listApprovals: Effect.fn("McpGateway.listApprovals")((status) =>
          Effect.map(approvals.listByStatus(status ?? "pending"), (list) => ({ approvals: list }))),
        listRuns: Effect.fn("McpGateway.listRuns")(function*(request: WorkflowRunListRequest) {
          if (!engineApiEnabled) {
            return yield* new NotFound({ message: "the workflow engine API is disabled (SVC_ENGINE_API_ENABLED=1 enables it)" })
          }
          return yield* workflow.list(request)
        }),
        listNodes: Effect.fn("McpGateway.listNodes")(() => nodes.list())
      })
    })
  )

  /**
   * Wired: the policy, approvals, memory, plan storage, workflow and nodes
   * layers (shared with their own subsystems: layers are built once). Needs
   * `GatewayConfig`, a `SqlClient` and `DomainEvents`.
   */
  static readonly layer = McpGateway.layerNoDeps.pipe(
    Layer.provide(Layer.mergeAll(PolicyService.layer, Approvals.layer, Memory.layer, PlansRepo.layer, WorkflowLive, Nodes.layer))
  )
}
