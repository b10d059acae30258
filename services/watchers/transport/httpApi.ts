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
import { NotFound } from "../../shared/errors.ts"
import {
  WatcherCreated,
  WatcherCreateRequest,
  WatcherDeleted,
  WatcherFiringList,
  WatcherFiringsQuery,
  WatcherListQuery,
  WatcherListResponse,
  WatcherUpdated,
  WatcherUpdateRequest,
  WebhookTriggerResponse
} from "../schema.ts"
import { ReplayDetected, WebhookMisconfigured, WebhookRejected } from "../webhook/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, OPERATOR } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

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
    }).annotateMerge(documented(
      "Creates a watcher for `plan_id`: `periodic` (`trigger_config.interval_ms`), `plan_complete` (fires when a run " +
        "of the plan ends) or `webhook` (`trigger_config.secret_handle`, an existing secret, and optionally " +
        "`max_skew_ms`). `trigger_config.playbook_id` or `steps` say what a firing runs (with " +
        "`SVC_AUTOMATION_ENABLED=1`; otherwise firings are recorded and announced only). docs/watchers.md.",
      {
        setup: "HANDLE=$(curl -s \"$GW/secrets\" -H \"authorization: Bearer $TOKEN\" | jq -r '.handles[] | select(.scope == \"webhook:hello\") | .handle_id')",
        body: "{\"plan_id\":\"hello-hook\",\"trigger_type\":\"webhook\",\"trigger_config\":{\"secret_handle\":\"$HANDLE\",\"playbook_id\":\"hello\"}}",
        response: { id: 1, plan_id: "hello-hook", trigger_type: "webhook" }
      }
    )),
    HttpApiEndpoint.get("list", "/watchers", { query: WatcherListQuery.fields, success: WatcherListResponse, error: REQUEST_ERRORS })
      .annotateMerge(documented(
        "The watchers that are not deleted, with their trigger, configuration and state: the active ones, or " +
          "`state=inactive` (paused) or `state=all`.",
        { response: { watchers: [{ id: 1, plan_id: "hello-hook", trigger_type: "webhook", active: true }] } }
      )),
    HttpApiEndpoint.post("triggerWebhook", "/watchers/:id/trigger/webhook", {
      params,
      success: WebhookTriggerResponse,
      error: [...errors, wire(WebhookRejected), wire(ReplayDetected), wire(WebhookMisconfigured)]
    }).annotateMerge(documented(
      "Fires a webhook watcher. The raw body is signed: `x-svc-webhook-signature: sha256=<hex HMAC-SHA256 of " +
        "\"<timestamp>.<nonce>.\" + body, keyed with the secret>`, with `x-svc-webhook-timestamp` (unix seconds or " +
        "milliseconds, within `max_skew_ms`) and a fresh `x-svc-webhook-nonce`. Checked in order: token, watcher, " +
        "envelope, window, secret, signature, nonce (409 `replay_detected` for a nonce seen before). docs/automation.md.",
      {
        shell: [
          "SECRET=9c1d0e2b8f3a41c7aa3f0c2f9e8d1b4a   # the webhook:hello secret's value (rotated above)",
          "printf '%s' '{\"event\":\"deploy\",\"ref\":\"main\"}' > body.json",
          "TS=$(date +%s); NONCE=$(openssl rand -hex 16)",
          "SIG=$( (printf '%s' \"$TS.$NONCE.\"; cat body.json) | openssl dgst -sha256 -hmac \"$SECRET\" | awk '{print $NF}')",
          "curl -s \"$GW/watchers/1/trigger/webhook\" -H \"authorization: Bearer $TOKEN\" -H 'content-type: application/json' \\",
          "  -H \"x-svc-webhook-timestamp: $TS\" -H \"x-svc-webhook-nonce: $NONCE\" -H \"x-svc-webhook-signature: sha256=$SIG\" \\",
          "  --data-binary @body.json"
        ].join("\n"),
        response: { ok: true, firing_id: "firing-…" }
      }
    )),
    HttpApiEndpoint.get("firings", "/watchers/:id/firings", {
      params,
      query: WatcherFiringsQuery.fields,
      success: WatcherFiringList,
      error: errors
    }).annotateMerge(documented(
      "The watcher's firings, newest first (`limit`, default 50): status `enqueued` (a run started), `recorded` or " +
        "`failed` (with `error`).",
      { path: "/watchers/1/firings", response: { firings: [{ watcher_id: 1, trigger_type: "webhook", status: "recorded" }] } }
    )),
    HttpApiEndpoint.patch("update", "/watchers/:id", {
      params,
      payload: WatcherUpdateRequest,
      success: WatcherUpdated,
      error: errors
    }).annotateMerge(documented(
      "Activates or deactivates a watcher (`{active}`); an inactive one does not fire (its webhook answers 404).",
      { path: "/watchers/1", body: { active: false }, response: { id: 1, updated: true } }
    )),
    HttpApiEndpoint.delete("remove", "/watchers/:id", { params, success: WatcherDeleted, error: errors }).annotateMerge(documented(
      "Deletes a watcher (its firings stay recorded); 404 afterwards.",
      { path: "/watchers/1", response: { id: 1, deleted: true } }
    ))
  )
  .annotate(Access, OPERATOR)
  .middleware(Authentication)
  .middleware(RequestErrors)
