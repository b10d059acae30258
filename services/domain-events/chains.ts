/**
 * Which chain a decision joins (docs/audit.md "Chains"). Decisions about a
 * plan (its policy check and outcome, its approvals, its runs' state
 * changes) join the plan's own chain, named by its `plan_id`. Decisions that
 * belong to no plan join one of the fixed gateway-wide chains below; their
 * ids start with `gateway.`, a prefix no plan id may take. Pure constants
 * (the workflow's wire schemas use {@link isGatewayChain}).
 *
 * @module
 */

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
