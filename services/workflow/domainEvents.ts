/**
 * The workflow subsystem's domain events (services/domain-events): what
 * other subsystems react to in process.
 *
 * @module
 */
import { DomainEvent } from "../domain-events/DomainEvents.ts"
import type { ExecutionRun } from "./runs/schema.ts"

/**
 * `run.ended`: a run moved to `succeeded`, `failed` or `cancelled` on this
 * instance. Published in the transaction of the move; delivered after the
 * commit to background subscribers (`DomainEvents.subscribe`), so a reaction
 * (which may start another run) never runs inside the engine's activity that
 * ended the run, and never delays it (issue 13: `plan_complete` watchers).
 */
export const RunEnded = DomainEvent.make<ExecutionRun>("run.ended")
