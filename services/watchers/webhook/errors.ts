/**
 * Errors of the signed webhook trigger (`POST /watchers/:id/trigger/webhook`;
 * gateway-api.md "Watchers", "Limits"; reference §6.7 "Webhook"). None of
 * them ever carries the signature, the secret or the body.
 *
 * An unknown, deleted, inactive or non-webhook watcher is the shared
 * `NotFound` (404 `not_found`, "webhook watcher not found").
 *
 * @module
 */
import { Schema } from "effect"

export { NotFound } from "../../shared/errors.ts"

/**
 * 401 `unauthorized`: the call is not a valid signed delivery. `message` is
 * one of `REJECTION_MESSAGES` (signature.ts): a missing or malformed envelope, a
 * timestamp outside the replay window, a signature that does not match, or
 * an empty secret.
 */
export class WebhookRejected extends Schema.TaggedError<WebhookRejected>()(
  "WebhookRejected",
  { message: Schema.String },
  { httpApiStatus: 401, errorCode: "unauthorized" }
) {}

/**
 * 409 `replay_detected`: this watcher already accepted a delivery with the
 * same nonce (kept durably as a firing row, so a restart does not reopen it).
 */
export class ReplayDetected extends Schema.TaggedError<ReplayDetected>()(
  "ReplayDetected",
  { message: Schema.String },
  { httpApiStatus: 409, errorCode: "replay_detected" }
) {}

/**
 * 503 `misconfigured`: the watcher's `trigger_config` is invalid (no string
 * `secret_handle`, a `max_skew_ms` out of range) or its secret handle cannot
 * be resolved (unknown, revoked, provider without a value).
 */
export class WebhookMisconfigured extends Schema.TaggedError<WebhookMisconfigured>()(
  "WebhookMisconfigured",
  { message: Schema.String },
  { httpApiStatus: 503, errorCode: "misconfigured" }
) {}
