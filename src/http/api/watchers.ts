/**
 * Watchers over HTTP (gateway-api.md "Watchers"; docs/watchers.md): create,
 * list, activate/deactivate and delete (device tokens: operator.write, the
 * list operator.read), and the signed webhook trigger. `:id` is a positive
 * integer (else 400 `invalid_request` "invalid watcher id"); an unknown or
 * deleted watcher is 404.
 *
 * The webhook route declares no JSON payload: its handler reads the raw body
 * bytes (they are what is signed, never re-serialised), after the bearer
 * token (operator.write), then the signature (401), the nonce (409) and the
 * watcher's config (503) are checked (docs/automation.md).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { NotFound } from "../../../services/shared/errors.ts"
import {
  WatcherCreated,
  WatcherCreateRequest,
  WatcherDeleted,
  WatcherFiringList,
  WatcherFiringsQuery,
  WatcherListResponse,
  WatcherUpdated,
  WatcherUpdateRequest,
  WebhookTriggerResponse
} from "../../../services/watchers/schema.ts"
import { ReplayDetected, WebhookMisconfigured, WebhookRejected } from "../../../services/watchers/webhook/errors.ts"
import { Access, OPERATOR } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

const params = { id: Schema.String.annotate({ description: "The watcher id: a positive integer." }) }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/**
 * `POST /watchers`, `GET /watchers`, `PATCH /watchers/:id`, `DELETE /watchers/:id`, `POST /watchers/:id/trigger/webhook`,
 * and the added `GET /watchers/:id/firings?limit` (operator.read; newest first; docs/watchers.md "Firings").
 */
export const WatchersApi = HttpApiGroup.make("watchers")
  .add(
    HttpApiEndpoint.post("create", "/watchers", {
      payload: WatcherCreateRequest,
      success: WatcherCreated.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }),
    HttpApiEndpoint.get("list", "/watchers", { success: WatcherListResponse, error: REQUEST_ERRORS }),
    HttpApiEndpoint.patch("update", "/watchers/:id", {
      params,
      payload: WatcherUpdateRequest,
      success: WatcherUpdated,
      error: errors
    }),
    HttpApiEndpoint.delete("remove", "/watchers/:id", { params, success: WatcherDeleted, error: errors }),
    HttpApiEndpoint.get("firings", "/watchers/:id/firings", {
      params,
      query: WatcherFiringsQuery.fields,
      success: WatcherFiringList,
      error: errors
    }),
    HttpApiEndpoint.post("triggerWebhook", "/watchers/:id/trigger/webhook", {
      params,
      success: WebhookTriggerResponse,
      error: [...errors, wire(WebhookRejected), wire(ReplayDetected), wire(WebhookMisconfigured)]
    })
  )
  .annotate(Access, OPERATOR)
