/**
 * Validation of a watcher's `trigger_config` by its trigger type
 * (docs/watchers.md "Trigger types"): the per-type schemas of `schema.ts`,
 * compiled once, with messages naming the field (`trigger_config.interval_ms:
 * …`), plus the rules a schema does not say (`playbook_id` and `steps` are
 * exclusive; `periodic` needs `interval_ms`, or the reference's
 * `intervalMs`). Pure: the secret handle's existence is the service's check.
 *
 * @module
 */
import { Result, Schema } from "effect"
import { makeDecoder } from "../shared/decode.ts"
import { PeriodicConfig, PlanCompleteConfig, type TriggerType, WebhookConfig, type WatcherConfig } from "./schema.ts"

// Decoded inside `{trigger_config}` so a message names the field from the body's root.
const decoders = {
  periodic: makeDecoder(Schema.Struct({ trigger_config: PeriodicConfig })),
  plan_complete: makeDecoder(Schema.Struct({ trigger_config: PlanCompleteConfig })),
  webhook: makeDecoder(Schema.Struct({ trigger_config: WebhookConfig }))
} as const

/**
 * The validated config of a `type` watcher from what was sent (absent: `{}`),
 * or the problem naming the field. The result holds only the fields of its
 * type, with the steps' defaults filled in; a periodic config's interval is
 * always `interval_ms`.
 */
export const decodeTriggerConfig = (
  type: TriggerType,
  raw: Readonly<Record<string, unknown>> | undefined
): Result.Result<WatcherConfig, string> => {
  const decoded = decoders[type]({ trigger_config: raw ?? {} })
  if (Result.isFailure(decoded)) return Result.fail(decoded.failure)
  const config: WatcherConfig & { readonly intervalMs?: number } = decoded.success.trigger_config
  if (config.playbook_id !== undefined && config.steps !== undefined) {
    return Result.fail("trigger_config: playbook_id and steps are exclusive (give one of them)")
  }
  if (type !== "periodic") return Result.succeed(config)
  const { intervalMs, ...rest } = config
  const interval = config.interval_ms ?? intervalMs
  if (interval === undefined) return Result.fail("trigger_config.interval_ms: missing required field (an integer of at least 1000, in ms)")
  return Result.succeed({ ...rest, interval_ms: interval })
}

/** The start of the `interval_ms` slot holding `nowMs`: floor(now / interval) × interval (ms since the epoch). */
export const slotOf = (nowMs: number, intervalMs: number): number => Math.floor(nowMs / intervalMs) * intervalMs
