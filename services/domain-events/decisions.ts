/**
 * Audit-worthy decisions (docs/audit.md): the `Decision` domain event every
 * deciding subsystem publishes, in the transaction of its write, and the
 * chains a decision joins. The audit chain subscribes to it in the
 * transaction (`AuditLog.layer`), so a decision and its audit event commit
 * or roll back together and are readable as soon as the deciding call
 * returns; the deciding subsystems never import the audit subsystem.
 *
 * Chains (docs/audit.md "Chains"): decisions about a plan (its policy check
 * and outcome, its approvals, its runs' state changes) join the plan's own
 * chain, named by its `plan_id`. Decisions that belong to no plan join one
 * of the fixed gateway-wide chains below; their ids start with `gateway.`, a
 * prefix no plan id may take.
 *
 * @module
 */
import { DomainEvent } from "./DomainEvents.ts"

/** What a decision records: its `type` (e.g. `approval.approved`) and any JSON fields (redacted before they are stored). */
export interface DecisionAction {
  readonly type: string
  readonly [field: string]: unknown
}

/** A decision: `action` joins chain `chain` (a plan id or one of {@link AuditChains}). */
export interface DecisionPayload {
  readonly chain: string
  readonly action: DecisionAction
}

/** `decision`: published in the deciding write's transaction; the audit chain appends it there. */
export const Decision = DomainEvent.make<DecisionPayload>("decision")

/** Prefix of every gateway-wide chain id; reserved (a workflow run's `plan_id` may not start with it). */
export const GATEWAY_CHAIN_PREFIX = "gateway."

/** The gateway-wide chains. */
export const AuditChains = {
  /** `auth.failed` (a presented credential refused, HTTP or WS) and `authz.denied` (a device token lacking the route's scope). */
  auth: "gateway.auth",
  /** Node pairing transitions: requested, approved, denied, revoked, token reissued. */
  pairing: "gateway.pairing",
  /** Device tokens issued and revoked. */
  deviceTokens: "gateway.device_tokens",
  /** Secret handles stored, rotated, revoked, and every resolution (never a value). */
  secrets: "gateway.secrets",
  /** Policy overrides created, revoked and expired. */
  policyOverrides: "gateway.policy_overrides",
  /** Routing configuration revisions. */
  routing: "gateway.routing"
} as const

/** One of {@link AuditChains}. */
export type GatewayChain = (typeof AuditChains)[keyof typeof AuditChains]

/** True when `id` is in the reserved gateway namespace. */
export const isGatewayChain = (id: string): boolean => id.startsWith(GATEWAY_CHAIN_PREFIX)
