/**
 * Which chain an audit event joins (docs/audit.md "Chains"): declared next to
 * the `Decision` domain event the deciding subsystems publish
 * (services/domain-events/chains.ts, decisions.ts), re-exported here for the audit
 * subsystem's own use.
 *
 * @module
 */
export { AuditChains, GATEWAY_CHAIN_PREFIX, type GatewayChain, isGatewayChain } from "../domain-events/chains.ts"
