/**
 * Secrets over HTTP (gateway-api.md "Secrets"; docs/secrets.md): device
 * tokens need operator.admin. No route ever returns a secret value; values
 * are decoded straight into `Redacted` and errors never echo them.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { RotationPropagationFailed } from "../errors.ts"
import {
  AgentId,
  SecretListResponse,
  SecretRevokeResponse,
  SecretRotateRequest,
  SecretRotateResponse,
  SecretStoreRequest,
  SecretStoreResponse
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

const params = { id: Schema.String }
/** `?agent_id=` (or the `x-svc-agent-id` header): the agent whose secrets a request addresses; default `default`. */
const query = { agent_id: Schema.optionalKey(AgentId) }

/** `POST /secrets`, `GET /secrets`, `DELETE /secrets/:id`, `POST /secrets/:id/rotate`. */
export const SecretsApi = HttpApiGroup.make("secrets")
  .add(
    HttpApiEndpoint.post("store", "/secrets", {
      query,
      payload: SecretStoreRequest,
      success: SecretStoreResponse.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Stores a secret value for `scope` with the configured provider (`db`: encrypted under the master key; `env`: " +
        "`value` names an environment variable) and answers its handle. The value never comes back from any route.",
      {
        body: { scope: "webhook:hello", value: "3f0c2f9e8d1b4a559d0e2b8f3a41c7aa" },
        response: { handle: { handle_id: "…", provider: "db", scope: "webhook:hello" } }
      }
    )),
    HttpApiEndpoint.get("list", "/secrets", { query, success: SecretListResponse, error: REQUEST_ERRORS }).annotateMerge(documented(
      "The agent's secret handles (`?agent_id=`, default `default`), without values.",
      { response: { handles: [{ handle_id: "…", scope: "webhook:hello" }] } }
    )),
    HttpApiEndpoint.delete("revoke", "/secrets/:id", {
      params,
      success: SecretRevokeResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented(
      "Revokes a handle: it no longer resolves (auth profiles and watchers that name it stop working). 404 for an " +
        "unknown or already revoked handle.",
      {
        setup: "HANDLE=$(curl -s \"$GW/secrets\" -H " + "\"authorization: Bearer $TOKEN\"" + " -d '{\"scope\":\"scratch\",\"value\":\"x\"}' | jq -r .handle.handle_id)",
        path: "/secrets/$HANDLE",
        response: { revoked: true }
      }
    )),
    HttpApiEndpoint.post("rotate", "/secrets/:id/rotate", {
      params,
      payload: SecretRotateRequest,
      success: SecretRotateResponse.pipe(HttpApiSchema.status(201)),
      error: [...REQUEST_ERRORS, wire(NotFound), wire(RotationPropagationFailed)]
    }).annotateMerge(documented(
      "Rotates a secret: stores `value` under a new handle, revokes the old one and points the auth profiles and " +
        "webhook watchers that named it at the new handle, in one transaction.",
      {
        setup: "HANDLE=$(curl -s \"$GW/secrets\" -H " + "\"authorization: Bearer $TOKEN\"" + " | jq -r '.handles[] | select(.scope == \"webhook:hello\") | .handle_id')",
        path: "/secrets/$HANDLE/rotate",
        body: { value: "9c1d0e2b8f3a41c7aa3f0c2f9e8d1b4a" },
        response: { revoked: true, handle: { scope: "webhook:hello" } }
      }
    ))
  )
  .annotate(Access, scope("operator.admin"))
  .middleware(Authentication)
  .middleware(RequestErrors)
