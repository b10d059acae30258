/** The routing shapes, from the declarations the server uses (services/routing/schema.ts, services/audit/schema.ts). */
export type { RoutingActor, RoutingConfig, RoutingConfigRecord } from "../../../../services/routing/schema.ts"
export type { AuditEvent, AuditReceiptBundle } from "../../../../services/audit/schema.ts"
