/**
 * Provider OAuth handlers (src/http/api/providerOAuth.ts). The callback
 * answers HTML: 200 with the success or the failure page, 400 with the
 * invalid-callback page. Pages echo nothing unescaped and load nothing
 * (`Content-Security-Policy: default-src 'none'`); they are never cached and
 * send no referrer (the callback URL carries the code).
 */
import { ProviderOAuthApi } from "./httpApi.ts"
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { failurePage, invalidPage, successPage } from "../html.ts"
import { ProviderOAuth } from "../ProviderOAuth.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

const PAGE_HEADERS = {
  "cache-control": "no-store",
  "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "x-content-type-options": "nosniff"
}

const page = (body: string, status: number) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8", headers: PAGE_HEADERS })

/** Provider OAuth handlers; need {@link ProviderOAuth}. */
export const ProviderOAuthHttp = group(apiOf(ProviderOAuthApi), "providerOAuth", (handlers) => Effect.gen(function*() {
  const oauth = yield* ProviderOAuth
  return handlers.handleAll({
    authorize: ({ params, payload }) => oauth.authorize(params.provider, payload),
    callback: ({ params, query }) =>
      oauth.callback(params.provider, query).pipe(
        Effect.map((outcome) =>
          outcome._tag === "Connected"
            ? page(successPage({ provider: outcome.provider, agentId: outcome.agent_id, authProfileId: outcome.auth_profile_id }), 200)
            : page(failurePage(outcome), 200)
        ),
        Effect.catchTag("InvalidCallback", (error) => Effect.succeed(page(invalidPage(error.message), 400)))
      )
  })
}))
