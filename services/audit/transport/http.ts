/**
 * Audit handlers (src/http/api/audit.ts): decode (done by the declaration),
 * one call to `AuditLog`, the result. Forget is told who asks (the request's
 * principal, set by the auth middleware) for its proof event.
 */
import { AuditApi } from "./httpApi.ts"
import { Effect } from "effect"
import { AuditLog } from "../AuditLog.ts"
import { actorOf, CurrentPrincipal } from "../../auth/principal.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Audit handlers; need {@link AuditLog}. */
export const AuditHttp = group(apiOf(AuditApi), "audit", (handlers) => Effect.gen(function*() {
  const audit = yield* AuditLog
  return handlers.handleAll({
    export: ({ params }) => audit.exportChain(params.planId),
    verify: ({ payload }) => Effect.sync(() => audit.verify(payload.events)),
    forget: ({ payload }) => Effect.flatMap(CurrentPrincipal, (principal) => audit.forget(payload, actorOf(principal)))
  })
}))
