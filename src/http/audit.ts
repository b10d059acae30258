/**
 * Audit handlers (src/http/api/audit.ts): decode (done by the declaration),
 * one call to `AuditLog`, the result. Forget is told who asks (the request's
 * principal, set by the auth middleware) for its proof event.
 */
import { Effect } from "effect"
import { AuditLog } from "../../services/audit/AuditLog.ts"
import { actorOf, CurrentPrincipal } from "../../services/auth/principal.ts"
import { GatewayApi } from "./api/index.ts"
import { group, orDieSql } from "./serve.ts"

/** Audit handlers; need {@link AuditLog}. */
export const AuditHttp = group(GatewayApi, "audit", (handlers) => Effect.gen(function*() {
  const audit = yield* AuditLog
  return handlers.handleAll({
    export: ({ params }) => orDieSql(audit.exportChain(params.planId)),
    verify: ({ payload }) => Effect.sync(() => audit.verify(payload.events)),
    forget: ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => orDieSql(audit.forget(payload, actorOf(principal))))
  })
}))
