/**
 * The secrets subsystem's domain events (services/domain-events): what other
 * subsystems may react to in process. Both are published in the transaction
 * of the change, after `SecretReferences` (which must answer in that
 * transaction: it repoints or disables what references the handle, and the
 * counts are part of the answer) was told; subscribers hear them after the
 * commit. No value is ever part of them.
 *
 * @module
 */
import { DomainEvent } from "../domain-events/DomainEvents.ts"

/** `secret.rotated`: `handle_id` was revoked and replaced by `new_handle_id` (same agent and scope, next `version`). */
export const SecretRotated = DomainEvent.make<{
  readonly handle_id: string
  readonly new_handle_id: string
  readonly agent_id: string
  readonly scope: string
  readonly version: number
}>("secret.rotated")

/** `secret.revoked`: `handle_id` was revoked (its value erased). */
export const SecretRevoked = DomainEvent.make<{ readonly handle_id: string }>("secret.revoked")
