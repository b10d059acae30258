/**
 * The work item state machine (reference §5.3): backlog → ready;
 * ready → doing | cancelled; doing → blocked | done | failed | cancelled;
 * blocked → doing | cancelled; done, failed, cancelled are terminal.
 * Entering `doing` is limited to {@link WIP_LIMIT} items per
 * (tenant, agent, workspace).
 *
 * @module
 */
import type { WorkItemStatus } from "./schema.ts"

/** Items in `doing` allowed at once per (tenant, agent, workspace). */
export const WIP_LIMIT = 2

/** The states each state may move to. */
export const TRANSITIONS: Readonly<Record<WorkItemStatus, ReadonlyArray<WorkItemStatus>>> = {
  backlog: ["ready"],
  ready: ["doing", "cancelled"],
  doing: ["blocked", "done", "failed", "cancelled"],
  blocked: ["doing", "cancelled"],
  done: [],
  failed: [],
  cancelled: []
}

/** True when `from` → `to` is allowed. */
export const canMove = (from: WorkItemStatus, to: WorkItemStatus): boolean => TRANSITIONS[from].includes(to)
