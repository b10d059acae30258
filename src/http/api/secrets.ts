/**
 * Secrets over HTTP (gateway-api.md "Secrets"; docs/secrets.md): device
 * tokens need operator.admin. No route ever returns a secret value; values
 * are decoded straight into `Redacted` and errors never echo them.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { RotationPropagationFailed } from "../../../services/secrets/errors.ts"
import {
  AgentId,
  SecretListResponse,
  SecretRevokeResponse,
  SecretRotateRequest,
  SecretRotateResponse,
  SecretStoreRequest,
  SecretStoreResponse
} from "../../../services/secrets/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, scope } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

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
    }),
    HttpApiEndpoint.get("list", "/secrets", { query, success: SecretListResponse, error: REQUEST_ERRORS }),
    HttpApiEndpoint.delete("revoke", "/secrets/:id", {
      params,
      success: SecretRevokeResponse,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }),
    HttpApiEndpoint.post("rotate", "/secrets/:id/rotate", {
      params,
      payload: SecretRotateRequest,
      success: SecretRotateResponse.pipe(HttpApiSchema.status(201)),
      error: [...REQUEST_ERRORS, wire(NotFound), wire(RotationPropagationFailed)]
    })
  )
  .annotate(Access, scope("operator.admin"))
