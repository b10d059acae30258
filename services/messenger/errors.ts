/**
 * Errors of the messenger ingress (gateway-api.md "Ingress (messenger
 * webhook)"; reference §7.10; docs/messenger.md). None of them ever carries
 * the bot token, the webhook secret or the body.
 *
 * @module
 */
import { Schema } from "effect"

export { InvalidRequest } from "../shared/errors.ts"

/** 503 `misconfigured`: `MESSENGER_BOT_TOKEN` is set without `MESSENGER_WEBHOOK_SECRET`. */
export class MessengerMisconfigured extends Schema.TaggedError<MessengerMisconfigured>()(
  "MessengerMisconfigured",
  { message: Schema.String },
  { httpApiStatus: 503, errorCode: "misconfigured" }
) {}

/** 401 `unauthorized` "invalid messenger webhook secret": the header is missing or does not match. */
export class InvalidWebhookSecret extends Schema.TaggedError<InvalidWebhookSecret>()(
  "InvalidWebhookSecret",
  { message: Schema.String },
  { httpApiStatus: 401, errorCode: "unauthorized" }
) {}

/** 400 `normalization_error`: the body is JSON but not a messenger update the gateway can normalise (the message says why). */
export class NormalizationError extends Schema.TaggedError<NormalizationError>()(
  "NormalizationError",
  { message: Schema.String },
  { httpApiStatus: 400, errorCode: "normalization_error" }
) {}

/** 503 `temporary_failure`: the update could not be queued (storage failed); the messenger retries it. */
export class TemporaryFailure extends Schema.TaggedError<TemporaryFailure>()(
  "TemporaryFailure",
  { message: Schema.String },
  { httpApiStatus: 503, errorCode: "temporary_failure" }
) {}
