/**
 * Wire schemas of watchers (gateway-api.md "Watchers"; reference §6.7;
 * docs/watchers.md): the `POST /watchers` body, the stored record, the
 * per-type `trigger_config` schemas, and a firing.
 *
 * A watcher fires a plan's automation when its trigger happens: `periodic`
 * once per time slot, `plan_complete` when a run of its plan succeeds or
 * fails, `webhook` on a signed call. Like every JSON body, unknown keys are
 * stripped; `trigger_config` is stored in its decoded form.
 *
 * @module
 */
import { Schema } from "effect"
import { PlaybookId } from "../playbooks/schema.ts"
import { AgentId } from "../shared/agent.ts"
import { bounded, LARGE_JSON } from "../shared/json.ts"
import { WorkflowKey, WorkflowLane } from "../workflow/runs/keys.ts"
import { MAX_ID_LENGTH, MAX_STEPS, WorkflowStep } from "../workflow/runs/schema.ts"
import { nonEmptyText as text, intBetween } from "../shared/schemas.ts"

/** A string of 1..`max` characters. */
/** What fires a watcher. */
export const TRIGGER_TYPES = ["periodic", "plan_complete", "webhook"] as const
export const TriggerType = Schema.Literals(TRIGGER_TYPES).annotate({
  expected: `a trigger type: one of ${TRIGGER_TYPES.join(", ")}`
})
export type TriggerType = typeof TriggerType.Type

// ---------------------------------------------------------------------------
// trigger_config, per trigger type
// ---------------------------------------------------------------------------

/** Shortest period of a `periodic` watcher (ms). */
export const MIN_INTERVAL_MS = 1000
/** Replay window of a webhook watcher when it names none, and the widest it may name (ms). */
export const DEFAULT_MAX_SKEW_MS = 300_000
export const MAX_MAX_SKEW_MS = 1_800_000
/** Longest `secret_handle`. */
export const MAX_SECRET_HANDLE_LENGTH = 256

const IntervalMs = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(MIN_INTERVAL_MS, { expected: `an integer of at least ${MIN_INTERVAL_MS} (ms)` })
)

/**
 * What a firing runs, for every trigger type (all optional): a `playbook_id`
 * or inline `steps` (not both), on `key` (default `cron:watcher-<id>`, or
 * `hook:<uuid>` for webhooks) and `lane` (default `cron`).
 */
const runFields = {
  playbook_id: Schema.optionalKey(PlaybookId),
  steps: Schema.optionalKey(Schema.Array(WorkflowStep).check(
    Schema.isMinLength(1, { expected: "at least one step" }),
    Schema.isMaxLength(MAX_STEPS, { expected: `at most ${MAX_STEPS} steps` })
  )),
  key: Schema.optionalKey(WorkflowKey),
  lane: Schema.optionalKey(WorkflowLane)
}

/** `periodic`: `interval_ms` (≥ 1000; the reference's `intervalMs` is accepted and stored as `interval_ms`). */
export const PeriodicConfig = Schema.Struct({
  ...runFields,
  interval_ms: Schema.optionalKey(IntervalMs),
  intervalMs: Schema.optionalKey(IntervalMs)
})

/**
 * `webhook`: `secret_handle` (the `handle_id` of `POST /secrets`; it must
 * exist), `max_skew_ms` (1..1800000, default 300000: the replay window),
 * `agent_id` (whose secret provider resolves the handle).
 */
export const WebhookConfig = Schema.Struct({
  ...runFields,
  secret_handle: text(MAX_SECRET_HANDLE_LENGTH),
  max_skew_ms: Schema.optionalKey(intBetween(1, MAX_MAX_SKEW_MS)),
  agent_id: Schema.optionalKey(AgentId)
})

/** `plan_complete`: only what to run. */
export const PlanCompleteConfig = Schema.Struct(runFields)

/** A validated `trigger_config`, as stored (only the fields of its type). */
export interface WatcherConfig {
  readonly [field: string]: unknown
  readonly playbook_id?: string
  readonly steps?: ReadonlyArray<WorkflowStep>
  readonly key?: string
  readonly lane?: typeof WorkflowLane.Type
  readonly interval_ms?: number
  readonly secret_handle?: string
  readonly max_skew_ms?: number
  readonly agent_id?: string
}

// ---------------------------------------------------------------------------
// Records and bodies
// ---------------------------------------------------------------------------

/** Any JSON object (bounded like peers' results: depth ≤ 32, ≤ 256 KiB). */
const JsonObject = bounded(Schema.Record(Schema.String, Schema.Unknown).annotate({ expected: "a JSON object" }), LARGE_JSON)

/** `POST /watchers`: `trigger_config` is validated per `trigger_type` by the service. */
export const WatcherCreateRequest = Schema.Struct({
  plan_id: text(MAX_ID_LENGTH),
  trigger_type: TriggerType,
  trigger_config: Schema.optionalKey(JsonObject)
}).annotate({ identifier: "WatcherCreateRequest", expected: "a JSON object" })
export type WatcherCreateRequest = typeof WatcherCreateRequest.Type

/** `POST /watchers` → 201. */
export const WatcherCreated = Schema.Struct({
  id: Schema.Int,
  plan_id: Schema.String,
  trigger_type: TriggerType
}).annotate({ identifier: "WatcherCreated" })
export type WatcherCreated = typeof WatcherCreated.Type

/** A watcher (reference §6.7). `trigger_config` is absent when none was given. */
export const Watcher = Schema.Struct({
  id: Schema.Int,
  plan_id: Schema.String,
  trigger_type: TriggerType,
  trigger_config: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  active: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String
}).annotate({ identifier: "Watcher" })
export type Watcher = typeof Watcher.Type

/**
 * `GET /watchers?state=`: `active` (the default: the watchers that fire),
 * `inactive` (paused with `PATCH {active: false}`) or `all` (not deleted).
 */
export const WATCHER_LIST_STATES = ["active", "inactive", "all"] as const
export const WatcherListState = Schema.Literals(WATCHER_LIST_STATES).annotate({
  expected: `one of ${WATCHER_LIST_STATES.join(", ")}`
})
export type WatcherListState = typeof WatcherListState.Type

/** `GET /watchers` query. */
export const WatcherListQuery = Schema.Struct({ state: Schema.optionalKey(WatcherListState) }).annotate({
  identifier: "WatcherListQuery"
})

/** `GET /watchers`: the watchers of the requested state (default: active), by id. */
export const WatcherListResponse = Schema.Struct({ watchers: Schema.Array(Watcher) }).annotate({ identifier: "WatcherListResponse" })

/** `PATCH /watchers/:id`: `active` omitted changes nothing. */
export const WatcherUpdateRequest = Schema.Struct({
  active: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "WatcherUpdateRequest", expected: "a JSON object" })
export type WatcherUpdateRequest = typeof WatcherUpdateRequest.Type

/** `PATCH /watchers/:id` → 200. */
export const WatcherUpdated = Schema.Struct({ id: Schema.Int, updated: Schema.Literal(true) }).annotate({ identifier: "WatcherUpdated" })
/** `DELETE /watchers/:id` → 200. */
export const WatcherDeleted = Schema.Struct({ id: Schema.Int, deleted: Schema.Literal(true) }).annotate({ identifier: "WatcherDeleted" })

/** `POST /watchers/:id/trigger/webhook` → 200: the firing and, when automation started one, its run. */
export const WebhookTriggerResponse = Schema.Struct({
  ok: Schema.Literal(true),
  firing_id: Schema.String,
  run_id: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WebhookTriggerResponse" })
export type WebhookTriggerResponse = typeof WebhookTriggerResponse.Type

// ---------------------------------------------------------------------------
// Firings
// ---------------------------------------------------------------------------

/**
 * `pending`: recorded, its run not started yet (a process that stopped right
 * then leaves it so); `enqueued`: its run started (`run_id`); `recorded`:
 * nothing to run (automation off, or no `steps`/`playbook_id`); `failed`:
 * starting the run failed (`error`).
 */
export const FIRING_STATUSES = ["pending", "enqueued", "recorded", "failed"] as const
export const FiringStatus = Schema.Literals(FIRING_STATUSES)
export type FiringStatus = typeof FiringStatus.Type

/** One firing of a watcher: exactly one per watcher and slot, nonce or source run. */
export const WatcherFiring = Schema.Struct({
  firing_id: Schema.String,
  watcher_id: Schema.Int,
  plan_id: Schema.String,
  trigger_type: TriggerType,
  /** `periodic`: the slot's start (ms since the epoch, a multiple of `interval_ms`). */
  slot: Schema.NullOr(Schema.Int),
  /** `webhook`: SHA-256 hex of the delivery's nonce. */
  nonce_digest: Schema.NullOr(Schema.String),
  /** `plan_complete`: the run whose end fired it. */
  source_run_id: Schema.NullOr(Schema.String),
  status: FiringStatus,
  run_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  created_at: Schema.String
}).annotate({ identifier: "WatcherFiring" })
export type WatcherFiring = typeof WatcherFiring.Type

// ---------------------------------------------------------------------------
// Path ids
// ---------------------------------------------------------------------------

const WATCHER_ID = /^[1-9][0-9]{0,15}$/

/** `:id` of a watcher route as a number: a positive integer in decimal, else `undefined` ("invalid watcher id"). */
export const parseWatcherId = (raw: string): number | undefined => {
  if (!WATCHER_ID.test(raw)) return undefined
  const id = Number(raw)
  return Number.isSafeInteger(id) ? id : undefined
}

/** Most firings `GET /watchers/:id/firings` answers with, and its default. */
export const MAX_FIRINGS_LIMIT = 500
export const DEFAULT_FIRINGS_LIMIT = 100

/** `GET /watchers/:id/firings` query: `limit` 1..500 (default 100). */
export const WatcherFiringsQuery = Schema.Struct({
  limit: Schema.optionalKey(
    Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: MAX_FIRINGS_LIMIT }))
  )
}).annotate({ identifier: "WatcherFiringsQuery" })

/** `GET /watchers/:id/firings` 200 body: the newest firings first. */
export const WatcherFiringList = Schema.Struct({ firings: Schema.Array(WatcherFiring) }).annotate({ identifier: "WatcherFiringList" })
