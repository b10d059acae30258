/**
 * Secrets handlers (src/http/api/secrets.ts): decode (done by the
 * declaration; values arrive as `Redacted`), one call to `Secrets`, the
 * handle (never a value). The agent comes from `?agent_id=` or the
 * `x-svc-agent-id` header (docs/secrets.md "Agents").
 */
import { SecretsApi } from "./httpApi.ts"
import { Effect, Result } from "effect"
import type { HttpServerRequest } from "effect/http"
import { Secrets, selectAgent } from "../SecretStore.ts"
import { InvalidRequest } from "../../shared/errors.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

const agentOf = (query: { readonly agent_id?: string }, request: HttpServerRequest.HttpServerRequest) => {
  const selected = selectAgent(query.agent_id, request.headers["x-svc-agent-id"])
  return Result.isFailure(selected) ? Effect.fail(new InvalidRequest({ message: selected.failure })) : Effect.succeed(selected.success)
}

/** Secrets handlers; need {@link Secrets}. */
export const SecretsHttp = group(apiOf(SecretsApi), "secrets", (handlers) => Effect.gen(function*() {
  const secrets = yield* Secrets
  return handlers.handleAll({
    store: ({ query, payload, request }) =>
      Effect.gen(function*() {
        const agentId = yield* agentOf(query, request)
        const handle = yield* secrets.store({ ...payload, agent_id: agentId })
        return { handle }
      }),
    list: ({ query, request }) =>
      Effect.flatMap(agentOf(query, request), (agentId) => Effect.map(secrets.list(agentId), (handles) => ({ handles }))),
    revoke: ({ params }) => Effect.as(secrets.revoke(params.id), { revoked: true as const }),
    rotate: ({ params, payload }) => secrets.rotate(params.id, payload.value)
  })
}))
