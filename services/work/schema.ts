/**
 * Wire schemas of the work board (issue 24 §2; reference §5.3 `work.*`). Every
 * payload carries the WorkScope fields `tenant_id, agent_id, workspace_id`
 * flat; every result wraps its record. Times are ISO-8601 UTC strings; JSON
 * fields (`acceptance`, `budgets`, `trigger_spec_json`, `payload_json`,
 * `value_json`) are any JSON value.
 *
 * @module
 */
import { Schema } from "effect"

/** A string of 1..`max` characters. */
const text = (max: number) =>
  Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(max, { expected: `1 to ${max} characters` }))

/** An id of a work record (uuid). */
const Id = text(64)

/** Any JSON value. */
const Json = Schema.Unknown

/** The WorkScope fields, flat in every payload and record. */
export const WorkScopeFields = {
  tenant_id: text(200),
  agent_id: text(200),
  workspace_id: text(200)
}

/** `{tenant_id, agent_id, workspace_id}`: the board a record belongs to. */
export const WorkScope = Schema.Struct(WorkScopeFields)
export type WorkScope = typeof WorkScope.Type

/** `action` (a concrete piece of work) or `initiative` (a goal grouping actions). */
export const WorkItemKind = Schema.Literals(["action", "initiative"])
export type WorkItemKind = typeof WorkItemKind.Type

/** Board columns; `done`, `failed`, `cancelled` are terminal (transitions.ts). */
export const WorkItemStatus = Schema.Literals(["backlog", "ready", "doing", "blocked", "done", "failed", "cancelled"])
export type WorkItemStatus = typeof WorkItemStatus.Type

/** `{resources}`: at most 128 resource names the item touches. */
export const WorkFingerprint = Schema.Struct({
  resources: Schema.Array(text(500)).check(Schema.isMaxLength(128))
})

/** A priority: an integer ≥ 0 (0 is the default). */
const Priority = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

/** A work item (reference §5.3 WorkItem). */
export const WorkItem = Schema.Struct({
  work_item_id: Schema.String,
  ...WorkScopeFields,
  kind: WorkItemKind,
  title: Schema.String,
  status: WorkItemStatus,
  priority: Schema.Int,
  created_at: Schema.String,
  created_from_session_key: Schema.String,
  last_active_at: Schema.String,
  acceptance: Schema.optionalKey(Json),
  fingerprint: Schema.optionalKey(WorkFingerprint),
  budgets: Schema.optionalKey(Json),
  parent_work_item_id: Schema.optionalKey(Schema.String),
  updated_at: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WorkItem" })
export type WorkItem = typeof WorkItem.Type

/** The only link kind: `work_item_id` depends on `linked_work_item_id`. */
export const WorkLinkKind = Schema.Literals(["depends_on"])

/** A link between two items of one scope. */
export const WorkLink = Schema.Struct({
  ...WorkScopeFields,
  work_item_id: Schema.String,
  linked_work_item_id: Schema.String,
  kind: WorkLinkKind,
  created_at: Schema.String
}).annotate({ identifier: "WorkLink" })
export type WorkLink = typeof WorkLink.Type

/** WorkArtifact kinds (reference §5.3). */
export const WorkArtifactKind = Schema.Literals([
  "candidate_plan", "hypothesis", "risk", "tool_intent", "verification_report", "jury_opinion", "result_summary", "other"
])

/** A work artifact: a note-like record attached to the board or one item. */
export const WorkArtifact = Schema.Struct({
  artifact_id: Schema.String,
  ...WorkScopeFields,
  work_item_id: Schema.optionalKey(Schema.String),
  kind: WorkArtifactKind,
  title: Schema.String,
  body_md: Schema.optionalKey(Schema.String),
  refs: Schema.Array(Schema.String),
  created_at: Schema.String
}).annotate({ identifier: "WorkArtifact" })
export type WorkArtifact = typeof WorkArtifact.Type

/** A decision record (reference §5.3 DecisionRecord). */
export const WorkDecision = Schema.Struct({
  decision_id: Schema.String,
  ...WorkScopeFields,
  work_item_id: Schema.optionalKey(Schema.String),
  question: Schema.String,
  chosen: Schema.String,
  alternatives: Schema.Array(Schema.String),
  rationale_md: Schema.String,
  input_artifact_ids: Schema.Array(Schema.String),
  created_at: Schema.String
}).annotate({ identifier: "WorkDecision" })
export type WorkDecision = typeof WorkDecision.Type

/** `time` signals fire at `trigger_spec_json.at`; `event` signals when `work.signal.update` sets `fired`. */
export const WorkSignalTriggerKind = Schema.Literals(["time", "event"])
export type WorkSignalTriggerKind = typeof WorkSignalTriggerKind.Type

/** Signal states. */
export const WorkSignalStatus = Schema.Literals(["active", "paused", "fired", "resolved", "cancelled"])
export type WorkSignalStatus = typeof WorkSignalStatus.Type

/** A signal (reference §5.3 WorkSignal); `fired_at` once fired. */
export const WorkSignal = Schema.Struct({
  signal_id: Schema.String,
  ...WorkScopeFields,
  work_item_id: Schema.optionalKey(Schema.String),
  trigger_kind: WorkSignalTriggerKind,
  trigger_spec_json: Json,
  payload_json: Schema.optionalKey(Json),
  status: WorkSignalStatus,
  created_at: Schema.String,
  updated_at: Schema.optionalKey(Schema.String),
  fired_at: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "WorkSignal" })
export type WorkSignal = typeof WorkSignal.Type

/** A state_kv scope: the agent's (of the payload's WorkScope) or one work item's. */
export const StateKvScope = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("agent") }),
  Schema.Struct({ kind: Schema.Literal("work_item"), work_item_id: Id })
])
export type StateKvScope = typeof StateKvScope.Type

/** One state_kv entry. */
export const StateKvEntry = Schema.Struct({
  ...WorkScopeFields,
  scope: StateKvScope,
  key: Schema.String,
  value_json: Json,
  updated_at: Schema.String
}).annotate({ identifier: "WorkStateKvEntry" })
export type StateKvEntry = typeof StateKvEntry.Type

// ---------------------------------------------------------------------------
// Requests and results
// ---------------------------------------------------------------------------

/** A page size; values outside 1..500 are clamped (default 50). */
const Limit = Schema.optionalKey(Schema.Int)
const Cursor = Schema.optionalKey(text(500))
const NextCursor = Schema.optionalKey(Schema.String)

export const WorkCreateRequest = Schema.Struct({
  ...WorkScopeFields,
  item: Schema.Struct({
    kind: WorkItemKind,
    title: text(500),
    priority: Schema.optionalKey(Priority),
    acceptance: Schema.optionalKey(Json),
    fingerprint: Schema.optionalKey(WorkFingerprint),
    budgets: Schema.optionalKey(Json),
    parent_work_item_id: Schema.optionalKey(Id)
  })
})
export type WorkCreateRequest = typeof WorkCreateRequest.Type
export const WorkItemResult = Schema.Struct({ item: WorkItem })

export const WorkListRequest = Schema.Struct({
  ...WorkScopeFields,
  statuses: Schema.optionalKey(Schema.Array(WorkItemStatus)),
  kinds: Schema.optionalKey(Schema.Array(WorkItemKind)),
  limit: Limit,
  cursor: Cursor
})
export type WorkListRequest = typeof WorkListRequest.Type
export const WorkListResult = Schema.Struct({ items: Schema.Array(WorkItem), next_cursor: NextCursor })

export const WorkGetRequest = Schema.Struct({ ...WorkScopeFields, work_item_id: Id })

export const WorkUpdateRequest = Schema.Struct({
  ...WorkScopeFields,
  work_item_id: Id,
  patch: Schema.Struct({
    title: Schema.optionalKey(text(500)),
    priority: Schema.optionalKey(Priority),
    acceptance: Schema.optionalKey(Json),
    fingerprint: Schema.optionalKey(WorkFingerprint),
    budgets: Schema.optionalKey(Json)
  })
})
export type WorkUpdateRequest = typeof WorkUpdateRequest.Type

export const WorkTransitionRequest = Schema.Struct({
  ...WorkScopeFields,
  work_item_id: Id,
  status: WorkItemStatus,
  reason: Schema.optionalKey(text(2000))
})
export type WorkTransitionRequest = typeof WorkTransitionRequest.Type

export const WorkLinkCreateRequest = Schema.Struct({
  ...WorkScopeFields,
  work_item_id: Id,
  linked_work_item_id: Id,
  kind: WorkLinkKind
})
export type WorkLinkCreateRequest = typeof WorkLinkCreateRequest.Type
export const WorkLinkResult = Schema.Struct({ link: WorkLink })
export const WorkLinkListRequest = Schema.Struct({ ...WorkScopeFields, work_item_id: Id })
export const WorkLinkListResult = Schema.Struct({ links: Schema.Array(WorkLink) })

export const WorkArtifactCreateRequest = Schema.Struct({
  ...WorkScopeFields,
  artifact: Schema.Struct({
    work_item_id: Schema.optionalKey(Id),
    kind: WorkArtifactKind,
    title: text(500),
    body_md: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(200_000))),
    refs: Schema.Array(text(2000)).check(Schema.isMaxLength(100))
  })
})
export type WorkArtifactCreateRequest = typeof WorkArtifactCreateRequest.Type
export const WorkArtifactResult = Schema.Struct({ artifact: WorkArtifact })
export const WorkArtifactListRequest = Schema.Struct({
  ...WorkScopeFields,
  work_item_id: Schema.optionalKey(Id),
  limit: Limit,
  cursor: Cursor
})
export type WorkArtifactListRequest = typeof WorkArtifactListRequest.Type
export const WorkArtifactListResult = Schema.Struct({ artifacts: Schema.Array(WorkArtifact), next_cursor: NextCursor })
export const WorkArtifactGetRequest = Schema.Struct({ ...WorkScopeFields, artifact_id: Id })

export const WorkDecisionCreateRequest = Schema.Struct({
  ...WorkScopeFields,
  decision: Schema.Struct({
    work_item_id: Schema.optionalKey(Id),
    question: text(2000),
    chosen: text(2000),
    alternatives: Schema.Array(text(2000)).check(Schema.isMaxLength(100)),
    rationale_md: Schema.String.check(Schema.isMaxLength(200_000)),
    input_artifact_ids: Schema.Array(Id).check(Schema.isMaxLength(100))
  })
})
export type WorkDecisionCreateRequest = typeof WorkDecisionCreateRequest.Type
export const WorkDecisionResult = Schema.Struct({ decision: WorkDecision })
export const WorkDecisionListRequest = Schema.Struct({ ...WorkScopeFields, work_item_id: Schema.optionalKey(Id) })
export const WorkDecisionListResult = Schema.Struct({ decisions: Schema.Array(WorkDecision) })
export const WorkDecisionGetRequest = Schema.Struct({ ...WorkScopeFields, decision_id: Id })

export const WorkSignalCreateRequest = Schema.Struct({
  ...WorkScopeFields,
  signal: Schema.Struct({
    work_item_id: Schema.optionalKey(Id),
    trigger_kind: WorkSignalTriggerKind,
    trigger_spec_json: Json,
    payload_json: Schema.optionalKey(Json)
  })
})
export type WorkSignalCreateRequest = typeof WorkSignalCreateRequest.Type
export const WorkSignalResult = Schema.Struct({ signal: WorkSignal })
export const WorkSignalListRequest = Schema.Struct({ ...WorkScopeFields, work_item_id: Schema.optionalKey(Id) })
export const WorkSignalListResult = Schema.Struct({ signals: Schema.Array(WorkSignal) })
export const WorkSignalGetRequest = Schema.Struct({ ...WorkScopeFields, signal_id: Id })
export const WorkSignalUpdateRequest = Schema.Struct({
  ...WorkScopeFields,
  signal_id: Id,
  patch: Schema.Struct({
    status: Schema.optionalKey(WorkSignalStatus),
    trigger_spec_json: Schema.optionalKey(Json),
    payload_json: Schema.optionalKey(Json)
  })
})
export type WorkSignalUpdateRequest = typeof WorkSignalUpdateRequest.Type

const Key = text(500)
export const WorkStateKvGetRequest = Schema.Struct({ ...WorkScopeFields, scope: StateKvScope, key: Key })
export const WorkStateKvGetResult = Schema.Struct({ entry: Schema.NullOr(StateKvEntry) })
export const WorkStateKvListRequest = Schema.Struct({ ...WorkScopeFields, scope: StateKvScope, prefix: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(500))) })
export const WorkStateKvListResult = Schema.Struct({ entries: Schema.Array(StateKvEntry) })
export const WorkStateKvSetRequest = Schema.Struct({ ...WorkScopeFields, scope: StateKvScope, key: Key, value_json: Json })
export const WorkStateKvSetResult = Schema.Struct({ entry: StateKvEntry })
