/**
 * Provider OAuth over HTTP (gateway-api.md "Provider OAuth", "Public routes";
 * docs/provider-oauth.md): `authorize` needs operator.admin; the callback is
 * public (the provider's redirect carries no token; it is protected by the
 * single-use state and PKCE) and answers small HTML pages.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import {
  OAuthAuthorizeRequest,
  OAuthAuthorizeResponse,
  OAuthCallbackQuery,
  ProviderId
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, PUBLIC, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

const HtmlPage = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" }))

/** `POST /providers/:provider/oauth/authorize`, `GET /providers/:provider/oauth/callback`. */
export const ProviderOAuthApi = HttpApiGroup.make("providerOAuth")
  .add(
    HttpApiEndpoint.post("authorize", "/providers/:provider/oauth/authorize", {
      params: { provider: ProviderId },
      payload: OAuthAuthorizeRequest,
      success: OAuthAuthorizeResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotate(Access, scope("operator.admin")).middleware(Authentication).annotateMerge(documented(
      "Starts an OAuth authorization with PKCE for a provider of the providers file: answers the provider's " +
        "`authorize_url` (with `state`, the S256 code challenge and the redirect URI of this gateway's callback) for " +
        "the operator's browser; the pending authorization lives 10 minutes. 404 for an unconfigured provider.",
      {
        path: "/providers/example/oauth/authorize",
        body: { agent_id: "default" },
        response: { status: "ok", provider: "example", state: "…", authorize_url: "https://auth.example.com/oauth/authorize?…" }
      }
    )),
    HttpApiEndpoint.get("callback", "/providers/:provider/oauth/callback", {
      params: { provider: Schema.String },
      query: OAuthCallbackQuery,
      success: HtmlPage.annotate({ description: "the success page, or the failure page (provider error, failed exchange)" }),
      error: HtmlPage.pipe(HttpApiSchema.status(400)).annotate({
        description: "invalid, expired, used or other provider's state, or missing parameters"
      })
    }).annotate(Access, PUBLIC).annotateMerge(documented(
      "Where the provider redirects the browser (public: the single-use `state` and PKCE protect it). Exchanges " +
        "`code` for tokens, stores them as secrets and upserts the agent's `oauth` profile; answers a small HTML page " +
        "(200 success or failure, e.g. the provider's `error`; 400 for a missing, unknown, expired or used `state`).",
      {
        setup: "STATE=$(curl -s \"$GW/providers/example/oauth/authorize\" -H \"authorization: Bearer $TOKEN\" -d '{}' | jq -r .state)",
        path: "/providers/example/oauth/callback",
        query: "state=$STATE&error=access_denied",
        text: "<!doctype html>…"
      }
    ))
  )
  .middleware(RequestErrors)
