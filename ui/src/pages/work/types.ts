/**
 * The work board's shapes, from the declarations the server uses
 * (services/work/schema.ts), and its state machine: the server's own table
 * (services/work/transitions.ts, plain data), so a card offers exactly the
 * moves the gateway allows.
 */
import type { WorkItemStatus, WorkScope } from "../../../../services/work/schema.ts"

export type { WorkItem, WorkItemKind, WorkItemStatus, WorkScope } from "../../../../services/work/schema.ts"
export { TRANSITIONS, WIP_LIMIT } from "../../../../services/work/transitions.ts"

/** The board's columns, in order. */
export const STATUSES: ReadonlyArray<WorkItemStatus> = ["backlog", "ready", "doing", "blocked", "done", "failed", "cancelled"]

/** The event types that make the board stale (docs/work.md "Events"). */
export const WORK_EVENTS: ReadonlyArray<string> = ["work."]

/** The scope the board opens on. */
export const DEFAULT_SCOPE: WorkScope = { tenant_id: "default", agent_id: "default", workspace_id: "default" }
