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
} from "../../../services/provider-oauth/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, PUBLIC, scope } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

const HtmlPage = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" }))

/** `POST /providers/:provider/oauth/authorize`, `GET /providers/:provider/oauth/callback`. */
export const ProviderOAuthApi = HttpApiGroup.make("providerOAuth")
  .add(
    HttpApiEndpoint.post("authorize", "/providers/:provider/oauth/authorize", {
      params: { provider: ProviderId },
      payload: OAuthAuthorizeRequest,
      success: OAuthAuthorizeResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotate(Access, scope("operator.admin")),
    HttpApiEndpoint.get("callback", "/providers/:provider/oauth/callback", {
      params: { provider: Schema.String },
      query: OAuthCallbackQuery,
      success: HtmlPage.annotate({ description: "the success page, or the failure page (provider error, failed exchange)" }),
      error: HtmlPage.pipe(HttpApiSchema.status(400)).annotate({
        description: "invalid, expired, used or other provider's state, or missing parameters"
      })
    }).annotate(Access, PUBLIC)
  )
