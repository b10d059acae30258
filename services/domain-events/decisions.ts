/**
 * Audit-worthy decisions (docs/audit.md): the `Decision` domain event every
 * deciding subsystem publishes, in the transaction of its write, and the
 * chains a decision joins. The audit chain subscribes to it in the
 * transaction (`AuditLog.layer`), so a decision and its audit event commit
 * or roll back together and are readable as soon as the deciding call
 * returns; the deciding subsystems never import the audit subsystem.
 *
 * The chain ids are in chains.ts (pure constants, re-exported here).
 *
 * @module
 */
import { DomainEvent } from "./DomainEvents.ts"

export { AuditChains, GATEWAY_CHAIN_PREFIX, type GatewayChain, isGatewayChain } from "./chains.ts"

/** What a decision records: its `type` (e.g. `approval.approved`) and any JSON fields (redacted before they are stored). */
export interface DecisionAction {
  readonly type: string
  readonly [field: string]: unknown
}

/** A decision: `action` joins chain `chain` (a plan id or one of `AuditChains`, chains.ts). */
export interface DecisionPayload {
  readonly chain: string
  readonly action: DecisionAction
}

/** `decision`: published in the deciding write's transaction; the audit chain appends it there. */
export const Decision = DomainEvent.make<DecisionPayload>("decision")
