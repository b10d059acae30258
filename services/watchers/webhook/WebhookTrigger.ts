/**
 * The signed webhook trigger: `POST /watchers/:id/trigger/webhook`
 * (gateway-api.md "Watchers", "Limits"; reference §6.7 "Webhook";
 * docs/automation.md). The route has already checked the bearer token
 * (operator.write); this service checks the watcher, the envelope, the
 * replay window and the signature, then fires the watcher once per nonce.
 *
 * @module
 */
import { Clock, Context, Effect, Layer, Redacted, Result } from "effect"
import { SecretResolver } from "../../secrets/SecretStore.ts"
import { decodeTriggerConfig } from "../config.ts"
import { DEFAULT_MAX_SKEW_MS } from "../schema.ts"
import { Watchers } from "../Watchers.ts"
import { NotFound, ReplayDetected, WebhookMisconfigured, WebhookRejected } from "./errors.ts"
import {
  bodySha256,
  nonceDigest,
  nonceKey,
  parseEnvelope,
  REJECTION_MESSAGES,
  type RejectionReason,
  verifySignature,
  withinWindow
} from "./signature.ts"

/** One delivery as received. */
export interface WebhookCall {
  /** The watcher addressed by the path. */
  readonly watcher_id: number
  /** Request headers (names in any case); only the three `x-svc-webhook-*` ones are read. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /** The raw body bytes exactly as received (what is signed). */
  readonly body: Uint8Array
}

/** 200: the delivery fired the watcher; `run_id` only when the firing started a run (`SVC_AUTOMATION_ENABLED=1` and a runnable config). */
export interface WebhookAccepted {
  readonly ok: true
  readonly firing_id: string
  readonly run_id?: string
}

/** Every failure of {@link WebhookTrigger.trigger}. */
export type WebhookTriggerError = NotFound | WebhookRejected | ReplayDetected | WebhookMisconfigured

/** What the firing records about the delivery: never the body, only its digest and length. */
export interface WebhookTriggerDetails {
  readonly [key: string]: unknown
  /** Lowercase hex SHA-256 of the body bytes. */
  readonly body_sha256: string
  /** Body length in bytes. */
  readonly body_bytes: number
}

/** The purpose recorded with each resolution of a watcher's secret (`secret_resolutions`). */
export const secretPurpose = (watcherId: number): string => `webhook:watcher-${watcherId}`

/**
 * Verifies and fires signed webhook deliveries. Nonces are kept durably as
 * firing rows (`nonce_key`, unique per secret across watchers), so a replay
 * stays a replay across restarts, across gateway processes on one database
 * and across watchers that share a secret.
 */
export class WebhookTrigger extends Context.Service<WebhookTrigger, {
  /**
   * Checks, in this order, and fails with the first problem:
   * 1. the watcher exists, is active and is a `webhook` watcher, else 404 `not_found` "webhook watcher not found";
   * 2. its `trigger_config` is a webhook config (`secret_handle`, `max_skew_ms` 1..1800000), else 503 `misconfigured`;
   * 3. the three headers are present and well formed, else 401 "missing or invalid webhook signature envelope";
   * 4. |now − timestamp| ≤ `max_skew_ms` (default 300000 ms; `Clock`), else 401 "webhook timestamp outside allowed replay window";
   * 5. the secret handle resolves (`SecretResolver`), else 503 `misconfigured`; an empty secret is 401 "webhook secret not available";
   * 6. the HMAC-SHA256 signature over `<timestamp>.<nonce>.<body>` matches (constant time, raw bytes), else 401
   *    "invalid webhook signature";
   * 7. the nonce was not accepted before under this secret (by this watcher or any other sharing the secret:
   *    {@link nonceKey}), else 409 `replay_detected`.
   * The secret's resolution is recorded (`secret_resolutions`, `secret.resolved`) only when check 6 holds.
   * Then the watcher fires (a firing row, `watcher.fired`, and a run when automation is enabled).
   */
  readonly trigger: (call: WebhookCall) => Effect.Effect<WebhookAccepted, WebhookTriggerError>
}>()("svc-gateway/watchers/WebhookTrigger") {
  /** Needs `Watchers` and `SecretResolver`. */
  static readonly layerNoDeps: Layer.Layer<WebhookTrigger, never, Watchers | SecretResolver> = Layer.effect(
    WebhookTrigger,
    Effect.gen(function*() {
      const watchers = yield* Watchers
      const resolver = yield* SecretResolver

      const trigger = Effect.fn("WebhookTrigger.trigger")(function*(call: WebhookCall) {
        const id = call.watcher_id
        const annotate = Effect.annotateLogs({ watcher_id: id })
        const reject = (reason: RejectionReason) =>
          Effect.logWarning("webhook rejected").pipe(
            Effect.annotateLogs({ reason }),
            annotate,
            Effect.andThen(Effect.fail(new WebhookRejected({ message: REJECTION_MESSAGES[reason] })))
          )
        const misconfigured = (message: string, detail: string) =>
          Effect.logWarning("webhook watcher misconfigured").pipe(
            Effect.annotateLogs({ reason: "misconfigured", detail }),
            annotate,
            Effect.andThen(Effect.fail(new WebhookMisconfigured({ message })))
          )

        const watcher = yield* watchers.get(id).pipe(
          Effect.catchTag("NotFound", () => Effect.succeed(undefined))
        )
        if (watcher === undefined || !watcher.active || watcher.trigger_type !== "webhook") {
          return yield* new NotFound({ message: "webhook watcher not found" })
        }
        // Validated when the watcher was created; decoded again so a stored config that no longer fits is a 503, not a 500.
        const config = decodeTriggerConfig("webhook", watcher.trigger_config)
        if (Result.isFailure(config)) return yield* misconfigured(`webhook watcher is misconfigured: ${config.failure}`, config.failure)
        const handle = config.success.secret_handle
        if (handle === undefined) return yield* misconfigured("webhook watcher is misconfigured: no trigger_config.secret_handle", "no secret_handle")

        const envelope = parseEnvelope(call.headers)
        if (Result.isFailure(envelope)) return yield* reject("envelope")
        const now = yield* Clock.currentTimeMillis
        if (!withinWindow(envelope.success.timestamp_ms, now, config.success.max_skew_ms ?? DEFAULT_MAX_SKEW_MS)) return yield* reject("window")

        // Recorded (secret_resolutions, secret.resolved) only once the signature holds: a forged call leaves no row.
        const signed = envelope.success
        const verified = yield* resolver.resolveChecked(handle, secretPurpose(id), (secret): Result.Result<string, RejectionReason> => {
          const key = Redacted.value(secret)
          if (key.length === 0) return Result.fail("secret")
          return verifySignature(key, signed, call.body) ? Result.succeed(nonceKey(key, signed.nonce)) : Result.fail("signature")
        }).pipe(
          Effect.catchTag("NotFound", (e) => misconfigured("webhook secret handle cannot be resolved", e.message))
        )
        if (Result.isFailure(verified)) return yield* reject(verified.failure)

        const trigger: WebhookTriggerDetails = { body_sha256: bodySha256(call.body), body_bytes: call.body.byteLength }
        const outcome = yield* watchers.fire(watcher, {
          kind: "nonce",
          nonce_digest: nonceDigest(signed.nonce),
          nonce_key: verified.success,
          trigger
        })
        if (!outcome.fired) {
          yield* Effect.logWarning("webhook rejected").pipe(Effect.annotateLogs({ reason: "replay" }), annotate)
          return yield* new ReplayDetected({ message: "webhook nonce has already been processed" })
        }
        const { firing_id, run_id } = outcome.firing
        // Debug: `Watchers.fire` already logs the firing at info.
        yield* Effect.logDebug("webhook fired").pipe(Effect.annotateLogs({ firing_id, run_id: run_id ?? "none" }), annotate)
        return run_id === null ? { ok: true, firing_id } as const : { ok: true, firing_id, run_id } as const
      })

      return WebhookTrigger.of({ trigger })
    })
  )

  /**
   * Wired for the gateway: the trigger keeps no state of its own (nonces are
   * firing rows), so this is {@link WebhookTrigger.layerNoDeps}; the
   * composition root provides `Watchers` and `SecretResolver`.
   */
  static readonly layer = WebhookTrigger.layerNoDeps
}
