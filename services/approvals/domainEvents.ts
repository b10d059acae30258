/**
 * The approvals subsystem's domain events (services/domain-events): what
 * other subsystems react to in process.
 *
 * @module
 */
import { DomainEvent } from "../domain-events/DomainEvents.ts"
import type { Approval } from "./schema.ts"

/**
 * `approval.resolved`: an approval left `pending` (approved, denied,
 * expired or cancelled), once per transition, published after the
 * `approval.resolved` WebSocket event; its after-commit reactions run before
 * the resolving call returns (the planner starts an approved plan's run,
 * the workflow continues or ends a paused run).
 */
export const ApprovalResolved = DomainEvent.make<Approval>("approval.resolved")

/**
 * `approval.created`: a pending approval was stored, published once its
 * creation committed (after the `approval.requested` WebSocket event is
 * queued); e.g. the messenger sends a tool call's approval to its chat.
 */
export const ApprovalCreated = DomainEvent.make<Approval>("approval.created")
