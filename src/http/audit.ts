/**
 * Audit handlers (src/http/api/audit.ts): decode (done by the declaration),
 * one call to `AuditLog`, the result. Forget is told who asks (the request's
 * principal, set by the auth middleware) for its proof event.
 */
import { Effect } from "effect"
import { AuditLog } from "../../services/audit/AuditLog.ts"
import { actorOf, CurrentPrincipal } from "../../services/auth/principal.ts"
import { GatewayApi } from "./api/index.ts"
import { handlers } from "./router.ts"

/** Audit handlers; need {@link AuditLog}. */
export const AuditHttp = handlers(GatewayApi, "audit", Effect.gen(function*() {
  const audit = yield* AuditLog
  return {
    export: ({ params }) => audit.exportChain(params.planId),
    verify: ({ payload }) => Effect.sync(() => audit.verify(payload.events)),
    forget: ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => audit.forget(payload, actorOf(principal)))
  }
}))
