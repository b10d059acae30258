/**
 * The work board over WebSocket (gateway-api.md message table `work.*`;
 * issue 24 §2): operator clients only; reads need operator.read, writes
 * operator.write. Every payload carries `tenant_id, agent_id, workspace_id`.
 *
 * @module
 */
import * as S from "../schema.ts"
import { CLIENT, make } from "../../../src/ws/api/message.ts"

const READ = "operator.read"
const WRITE = "operator.write"
const scope = { tenant_id: "t1", agent_id: "default", workspace_id: "ws1" }
const id = "7d7d9a3e-4f0b-4c61-9a57-2f6f0e0c1a11"

export const WorkCreate = make("work.create", {
  scope: WRITE, roles: CLIENT, payload: S.WorkCreateRequest, result: S.WorkItemResult,
  description: "Creates a work item in `backlog`; answers `{item}`.",
  example: { payload: { ...scope, item: { kind: "action", title: "Rotate the API key", priority: 1 } } }
})
export const WorkList = make("work.list", {
  scope: READ, roles: CLIENT, payload: S.WorkListRequest, result: S.WorkListResult,
  description: "One page of the scope's items by `created_at` (filters `statuses`, `kinds`; `limit` clamped to 1..500, default 50); `next_cursor` while more remain.",
  example: { payload: { ...scope, statuses: ["doing"] }, result: { items: [] } }
})
export const WorkGet = make("work.get", {
  scope: READ, roles: CLIENT, payload: S.WorkGetRequest, result: S.WorkItemResult,
  description: "One work item (`not_found` when unknown in the scope).",
  example: { payload: { ...scope, work_item_id: id } }
})
export const WorkUpdate = make("work.update", {
  scope: WRITE, roles: CLIENT, payload: S.WorkUpdateRequest, result: S.WorkItemResult,
  description: "Changes title, priority, acceptance, fingerprint or budgets (never the status: see `work.transition`).",
  example: { payload: { ...scope, work_item_id: id, patch: { priority: 3 } } }
})
export const WorkTransition = make("work.transition", {
  scope: WRITE, roles: CLIENT, payload: S.WorkTransitionRequest, result: S.WorkItemResult,
  description: "Moves an item along the state machine (backlog→ready; ready→doing|cancelled; doing→blocked|done|failed|cancelled; " +
    "blocked→doing|cancelled). `invalid_transition` {code, from, to, allowed}; entering doing beyond WIP 2 per scope: " +
    "`wip_limit_exceeded` {code, from, to, limit, current}.",
  example: { payload: { ...scope, work_item_id: id, status: "ready" } }
})
export const WorkLinkCreate = make("work.link.create", {
  scope: WRITE, roles: CLIENT, payload: S.WorkLinkCreateRequest, result: S.WorkLinkResult,
  description: "`work_item_id` depends on `linked_work_item_id` (same scope; a link closing a cycle is `invalid_request`).",
  example: { payload: { ...scope, work_item_id: id, linked_work_item_id: "0b5f0b7c-1d5e-4d0e-8a3c-5a0f4f7e2b22", kind: "depends_on" } }
})
export const WorkLinkList = make("work.link.list", {
  scope: READ, roles: CLIENT, payload: S.WorkLinkListRequest, result: S.WorkLinkListResult,
  description: "The links from and to a work item.",
  example: { payload: { ...scope, work_item_id: id }, result: { links: [] } }
})
export const WorkArtifactList = make("work.artifact.list", {
  scope: READ, roles: CLIENT, payload: S.WorkArtifactListRequest, result: S.WorkArtifactListResult,
  description: "One page of work artifacts by `created_at` (optionally of one item); `next_cursor` while more remain.",
  example: { payload: { ...scope }, result: { artifacts: [] } }
})
export const WorkArtifactGet = make("work.artifact.get", {
  scope: READ, roles: CLIENT, payload: S.WorkArtifactGetRequest, result: S.WorkArtifactResult,
  description: "One work artifact.",
  example: { payload: { ...scope, artifact_id: id } }
})
export const WorkArtifactCreate = make("work.artifact.create", {
  scope: WRITE, roles: CLIENT, payload: S.WorkArtifactCreateRequest, result: S.WorkArtifactResult,
  description: "Records a work artifact (candidate_plan, hypothesis, risk, tool_intent, verification_report, jury_opinion, result_summary, other).",
  example: { payload: { ...scope, artifact: { kind: "risk", title: "Key in logs", refs: [] } } }
})
export const WorkDecisionList = make("work.decision.list", {
  scope: READ, roles: CLIENT, payload: S.WorkDecisionListRequest, result: S.WorkDecisionListResult,
  description: "The scope's decision records by `created_at` (optionally of one item).",
  example: { payload: { ...scope }, result: { decisions: [] } }
})
export const WorkDecisionGet = make("work.decision.get", {
  scope: READ, roles: CLIENT, payload: S.WorkDecisionGetRequest, result: S.WorkDecisionResult,
  description: "One decision record.",
  example: { payload: { ...scope, decision_id: id } }
})
export const WorkDecisionCreate = make("work.decision.create", {
  scope: WRITE, roles: CLIENT, payload: S.WorkDecisionCreateRequest, result: S.WorkDecisionResult,
  description: "Records a decision `{question, chosen, alternatives, rationale_md, input_artifact_ids}` (also appended to the audit chain `gateway.work`).",
  example: { payload: { ...scope, decision: { question: "Which region?", chosen: "eu", alternatives: ["us"], rationale_md: "latency", input_artifact_ids: [] } } }
})
export const WorkSignalList = make("work.signal.list", {
  scope: READ, roles: CLIENT, payload: S.WorkSignalListRequest, result: S.WorkSignalListResult,
  description: "The scope's signals by `created_at` (optionally of one item).",
  example: { payload: { ...scope }, result: { signals: [] } }
})
export const WorkSignalGet = make("work.signal.get", {
  scope: READ, roles: CLIENT, payload: S.WorkSignalGetRequest, result: S.WorkSignalResult,
  description: "One signal.",
  example: { payload: { ...scope, signal_id: id } }
})
export const WorkSignalCreate = make("work.signal.create", {
  scope: WRITE, roles: CLIENT, payload: S.WorkSignalCreateRequest, result: S.WorkSignalResult,
  description: "A signal, `active`: `time` ones (`trigger_spec_json` `{\"at\": \"<ISO time>\"}`) fire at that time (`work.signal.fired`); `event` ones when updated to `fired`.",
  example: { payload: { ...scope, signal: { trigger_kind: "time", trigger_spec_json: { at: "2030-01-01T09:00:00.000Z" } } } }
})
export const WorkSignalUpdate = make("work.signal.update", {
  scope: WRITE, roles: CLIENT, payload: S.WorkSignalUpdateRequest, result: S.WorkSignalResult,
  description: "Changes a signal's status (active↔paused; active|paused→fired (event signals) or cancelled; fired→resolved), spec or payload.",
  example: { payload: { ...scope, signal_id: id, patch: { status: "fired" } } }
})
export const WorkStateKvGet = make("work.state_kv.get", {
  scope: READ, roles: CLIENT, payload: S.WorkStateKvGetRequest, result: S.WorkStateKvGetResult,
  description: "One state_kv entry of the agent's or a work item's scope; `{entry: null}` when absent.",
  example: { payload: { ...scope, scope: { kind: "agent" }, key: "cursor" }, result: { entry: null } }
})
export const WorkStateKvList = make("work.state_kv.list", {
  scope: READ, roles: CLIENT, payload: S.WorkStateKvListRequest, result: S.WorkStateKvListResult,
  description: "The entries of a state_kv scope whose key starts with `prefix`, by key.",
  example: { payload: { ...scope, scope: { kind: "agent" }, prefix: "cur" }, result: { entries: [] } }
})
export const WorkStateKvSet = make("work.state_kv.set", {
  scope: WRITE, roles: CLIENT, payload: S.WorkStateKvSetRequest, result: S.WorkStateKvSetResult,
  description: "Sets one state_kv entry (any JSON value).",
  example: { payload: { ...scope, scope: { kind: "agent" }, key: "cursor", value_json: { page: 2 } } }
})

/** Every `work.*` request type, in the spec's table order. */
export const WorkMessages = [
  WorkCreate, WorkList, WorkGet, WorkUpdate, WorkTransition, WorkLinkCreate, WorkLinkList,
  WorkArtifactList, WorkArtifactGet, WorkArtifactCreate, WorkDecisionList, WorkDecisionGet, WorkDecisionCreate,
  WorkSignalList, WorkSignalGet, WorkSignalCreate, WorkSignalUpdate, WorkStateKvGet, WorkStateKvList, WorkStateKvSet
] as const
