/**
 * The messenger ingress over HTTP (gateway-api.md "Ingress (messenger
 * webhook)"; reference §7.10; docs/messenger.md): the webhook `POST
 * /ingress/messenger` (operator.write; the raw body text is the update; no
 * JSON payload is declared, the handler reads the text) and the added inbox
 * read `GET /ingress/messenger/inbox` (operator.read).
 *
 * @module
 */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { Access, OPERATOR } from "../../../src/http/api/access.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { InvalidWebhookSecret, MessengerMisconfigured, NormalizationError, TemporaryFailure } from "../errors.ts"
import { InboxQuery, InboxResponse, IngressQuery, IngressResponse } from "../schema.ts"

const UPDATE = {
  update_id: 10001,
  message: {
    message_id: 7,
    date: 1767225600,
    chat: { id: 4242, type: "private", username: "ada" },
    from: { id: 4242, is_bot: false, first_name: "Ada", username: "ada" },
    text: "Hello, agent"
  }
}

/** `POST /ingress/messenger`, `GET /ingress/messenger/inbox`. */
export const MessengerApi = HttpApiGroup.make("messenger")
  .add(
    HttpApiEndpoint.post("receive", "/ingress/messenger", {
      query: IngressQuery,
      success: IngressResponse,
      error: [...REQUEST_ERRORS, wire(InvalidWebhookSecret), wire(NormalizationError), wire(MessengerMisconfigured), wire(TemporaryFailure)]
    }).annotateMerge(documented(
      "The messenger webhook: the raw body is a Bot API update. With `MESSENGER_BOT_TOKEN` set, the header " +
        "`x-messenger-bot-api-secret-token` must equal `MESSENGER_WEBHOOK_SECRET` (401 `invalid messenger webhook " +
        "secret`; 503 `misconfigured` when the secret is not set). An empty body or one that is not JSON is 400 " +
        "`invalid_request`; one that is not a message update 400 `normalization_error`. With the agent runtime and " +
        "the bot token both set, the update is queued (deduplicated by account, chat and message id) and answered " +
        "`{ok: true, queued, inbox_id, deduped, status}` at once (503 `temporary_failure` when it cannot be); its turn " +
        "runs in the chat's session and the reply is sent to the chat. `agent_id` forces the agent (else the routing " +
        "configuration's `messenger.threads`). A `callback_query` (an approve/deny button press) answers " +
        "`{ok: true, callback: {outcome}}`. Otherwise (here: no bot token) it answers the normalised update " +
        "`{thread, message}`. docs/messenger.md.",
      {
        headers: { "x-messenger-bot-api-secret-token": "$MESSENGER_WEBHOOK_SECRET" },
        body: UPDATE,
        response: {
          thread: { id: "4242", kind: "private", username: "ada", pii_fields: ["sender.first_name", "sender.username", "message.text"] },
          message: {
            message_id: "7",
            received_at: "2026-01-01T00:00:00.000Z",
            delivery: { channel: "messenger", account: "default" },
            container: { kind: "dm", id: "4242" },
            sender: { id: "4242", display: "ada" },
            content: { text: "Hello, agent", attachments: [] },
            provenance: ["user"]
          }
        }
      }
    )),
    HttpApiEndpoint.get("inbox", "/ingress/messenger/inbox", {
      query: InboxQuery,
      success: InboxResponse,
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "The messenger inbox, newest first (`status` filters; `limit` 1..200, default 50): each update's chat, " +
        "message id, agent, status (`queued`, `running`, `processed`, `interrupted`, `failed`), how often it was " +
        "received again (`duplicates`), its reply and its delivery receipts; `counts` by status and of deduplicated " +
        "receipts.",
      {
        query: "limit=20",
        response: { status: "ok", counts: { queued: 0, running: 0, processed: 0, interrupted: 0, failed: 0, deduplicated: 0 }, items: [] }
      }
    ))
  )
  .annotate(Access, OPERATOR)
  .middleware(Authentication)
  .middleware(RequestErrors)
