/**
 * Events of the work board (issue 24 §2), published after the write commits,
 * to operator clients holding `operator.read` or `operator.write` (the admin
 * token always), with envelope scope `{kind: "work", tenant_id, agent_id,
 * workspace_id}`:
 *
 * | Type | Payload | When |
 * |---|---|---|
 * | `work.item.created` | `{item}` | `work.create` |
 * | `work.item.updated` | `{item}` | `work.update`; a transition to backlog, ready or doing |
 * | `work.item.blocked` / `completed` / `failed` / `cancelled` | `{item}` | a transition to blocked / done / failed / cancelled |
 * | `work.link.created` | `{link}` | `work.link.create` |
 * | `work.artifact.created` | `{artifact}` | `work.artifact.create` |
 * | `work.decision.created` | `{decision}` | `work.decision.create` |
 * | `work.signal.created` / `updated` / `fired` | `{signal}` | create; update; a time signal's moment or an update to `fired` |
 * | `work.state_kv.updated` | `{entry}` | `work.state_kv.set` |
 *
 * @module
 */
import { Schema } from "effect"
import { type Audience, make } from "../ws-sessions/GatewayEvent.ts"
import { StateKvEntry, WorkArtifact, WorkDecision, WorkItem, WorkLink, WorkSignal } from "./schema.ts"

/** Operator clients holding operator.read or operator.write (the admin token always). */
export const WORK_READERS: Audience = { roles: ["client"], requiredScopes: ["operator.read", "operator.write"] }

const item = Schema.Struct({ item: WorkItem })
const event = <const T extends string, P extends Schema.Top>(type: T, payload: P) => make(type, { payload, audience: WORK_READERS })

export const WorkItemCreated = event("work.item.created", item)
export const WorkItemUpdated = event("work.item.updated", item)
export const WorkItemBlocked = event("work.item.blocked", item)
export const WorkItemCompleted = event("work.item.completed", item)
export const WorkItemFailed = event("work.item.failed", item)
export const WorkItemCancelled = event("work.item.cancelled", item)
export const WorkLinkCreated = event("work.link.created", Schema.Struct({ link: WorkLink }))
export const WorkArtifactCreated = event("work.artifact.created", Schema.Struct({ artifact: WorkArtifact }))
export const WorkDecisionCreated = event("work.decision.created", Schema.Struct({ decision: WorkDecision }))
export const WorkSignalCreated = event("work.signal.created", Schema.Struct({ signal: WorkSignal }))
export const WorkSignalUpdated = event("work.signal.updated", Schema.Struct({ signal: WorkSignal }))
export const WorkSignalFired = event("work.signal.fired", Schema.Struct({ signal: WorkSignal }))
export const WorkStateKvUpdated = event("work.state_kv.updated", Schema.Struct({ entry: StateKvEntry }))

/** Every event type of this subsystem. */
export const WorkEvents = [
  WorkItemCreated, WorkItemUpdated, WorkItemBlocked, WorkItemCompleted, WorkItemFailed, WorkItemCancelled,
  WorkLinkCreated, WorkArtifactCreated, WorkDecisionCreated,
  WorkSignalCreated, WorkSignalUpdated, WorkSignalFired, WorkStateKvUpdated
] as const
