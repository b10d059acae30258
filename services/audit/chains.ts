/**
 * Which chain an audit event joins (docs/audit.md "Chains"): declared with
 * the `Decision` domain event the deciding subsystems publish
 * (services/domain-events/decisions.ts), re-exported here for the audit
 * subsystem's own use.
 *
 * @module
 */
export { AuditChains, GATEWAY_CHAIN_PREFIX, type GatewayChain, isGatewayChain } from "../domain-events/decisions.ts"
