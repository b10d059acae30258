/**
 * What a firing runs (docs/watchers.md "Firing"): pure, so the rules are
 * read and tested in one place. A firing runs only with
 * `SVC_AUTOMATION_ENABLED=1` and a config naming `steps` or `playbook_id`:
 *
 * | Trigger | key (unless `key`) | plan_id | trigger_kind |
 * |---|---|---|---|
 * | periodic | `cron:watcher-<id>` | the watcher's | `cron` |
 * | webhook | `hook:<uuid>` (fresh) | the watcher's | `webhook` |
 * | plan_complete | `cron:watcher-<id>` | a fresh `plan-<uuid>` | `hook` |
 *
 * The lane is `lane` or `cron`. A plan_complete watcher's run gets a plan of
 * its own, so its end cannot fire the same watcher again.
 *
 * @module
 */
import { randomUUID } from "node:crypto"
import type { Lane } from "../workflow/runs/keys.ts"
import type { TriggerKind, WorkflowStep } from "../workflow/runs/schema.ts"
import type { TriggerType, Watcher, WatcherConfig } from "./schema.ts"

/** The lane of a watcher's runs when its config names none. */
export const WATCHER_LANE: Lane = "cron"

/** The workflow trigger kind of each trigger type. */
export const TRIGGER_KIND: Readonly<Record<TriggerType, TriggerKind>> = {
  periodic: "cron",
  webhook: "webhook",
  plan_complete: "hook"
}

/** What started a firing. */
export type FiringTrigger =
  | { readonly kind: "slot"; readonly slot: number }
  | {
    readonly kind: "nonce"
    readonly nonce_digest: string
    /** `nonceKey` (webhook/signature.ts) of the nonce under the watcher's secret: unique across watchers (`watcher_firings.nonce_key`). */
    readonly nonce_key: string
    readonly trigger?: Readonly<Record<string, unknown>>
  }
  | { readonly kind: "run"; readonly run_id: string; readonly status: string }

/** The firing's unique key within its watcher: `slot:<slot>`, `nonce:<digest>` or `run:<run_id>`. */
export const dedupeKey = (trigger: FiringTrigger): string => {
  switch (trigger.kind) {
    case "slot":
      return `slot:${trigger.slot}`
    case "nonce":
      return `nonce:${trigger.nonce_digest}`
    case "run":
      return `run:${trigger.run_id}`
  }
}

/** A run to start for a firing: inline `steps` or a `playbook_id`, where and why. */
export interface PlannedRun {
  readonly what: { readonly steps: ReadonlyArray<WorkflowStep> } | { readonly playbook_id: string }
  readonly key: string
  readonly lane: Lane
  readonly plan_id: string
  readonly trigger_kind: TriggerKind
  /** The job's trigger metadata: `{watcher_id, firing_id, slot | source_run_id…, ...the trigger's own}`. */
  readonly trigger: Readonly<Record<string, unknown>>
}

const triggerMetadata = (trigger: FiringTrigger): Readonly<Record<string, unknown>> => {
  switch (trigger.kind) {
    case "slot":
      return { slot: trigger.slot }
    case "nonce":
      return trigger.trigger ?? {}
    case "run":
      return { source_run_id: trigger.run_id, source_status: trigger.status }
  }
}

/** The run a firing starts, or `undefined` when its config names nothing to run. */
export const planRun = (
  watcher: Watcher,
  config: WatcherConfig,
  firingId: string,
  trigger: FiringTrigger
): PlannedRun | undefined => {
  const what = config.steps !== undefined
    ? { steps: config.steps }
    : config.playbook_id !== undefined
    ? { playbook_id: config.playbook_id }
    : undefined
  if (what === undefined) return undefined
  return {
    what,
    key: config.key ?? (watcher.trigger_type === "webhook" ? `hook:${randomUUID()}` : `cron:watcher-${watcher.id}`),
    lane: config.lane ?? WATCHER_LANE,
    plan_id: watcher.trigger_type === "plan_complete" ? `plan-${randomUUID()}` : watcher.plan_id,
    trigger_kind: TRIGGER_KIND[watcher.trigger_type],
    trigger: { ...triggerMetadata(trigger), watcher_id: watcher.id, firing_id: firingId }
  }
}
