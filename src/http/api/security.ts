/**
 * How a caller authenticates, declared for the OpenAPI document and the typed
 * client (gateway-api.md "Authentication"): {@link Authentication} is the
 * `HttpApiMiddleware` every non-public endpoint carries, with two security
 * schemes, either of which is enough: `bearer` (`Authorization: Bearer
 * <token>`) and `cookie` (the `svc_admin_token` cookie, for the gateway's own
 * pages; state-changing cookie requests must come from the gateway's own
 * origin). Which token may use which route is the endpoint's `Access`
 * (src/http/api/access.ts). {@link RequestErrors}, on every endpoint, turns a
 * request that fails its declared path or query schema into the gateway's
 * 400 `invalid_request`. Declarations only: the server side is
 * src/http/authentication.ts and src/http/requestErrors.ts.
 */
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "effect/http-api"
import { ADMIN_COOKIE } from "../../../services/auth/schema.ts"

/** `Authorization: Bearer <token>`: the admin token or a device token. */
export const BearerToken = HttpApiSecurity.bearer.pipe(HttpApiSecurity.annotate(
  OpenApi.Description,
  "`Authorization: Bearer <token>`: the admin token or a device token (`svc-device.v1.…`)."
))

/** The `svc_admin_token` cookie set by `POST /auth/session`. */
export const SessionCookie = HttpApiSecurity.apiKey({ in: "cookie", key: ADMIN_COOKIE }).pipe(HttpApiSecurity.annotate(
  OpenApi.Description,
  "The `svc_admin_token` cookie set by `POST /auth/session`; requests that change state must come from the " +
    "gateway's own origin (`Origin` header)."
))

/**
 * Authentication of the non-public endpoints: either scheme. Failures are
 * the endpoint's declared 401, 403 and 429 (`AUTH_ERRORS`).
 */
export class Authentication extends HttpApiMiddleware.Service<Authentication>()("svc-gateway/http/Authentication", {
  security: { bearer: BearerToken, cookie: SessionCookie }
}) {}

/** Path and query decoding failures as 400 `invalid_request` naming the field (declared on the whole API). */
export class RequestErrors extends HttpApiMiddleware.Service<RequestErrors>()("svc-gateway/http/RequestErrors") {}
