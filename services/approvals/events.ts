/**
 * Events of the approvals subsystem (reference §3.4): `approval.requested`
 * when an approval is created, `approval.resolved` when it leaves `pending`
 * (approved, denied, expired or cancelled). Both carry the full record and go
 * to operator clients that hold `operator.approvals` (the admin token always).
 */
import { Schema } from "effect"
import { type Audience, make } from "../ws-sessions/GatewayEvent.ts"
import { Approval } from "./schema.ts"

/** Operator clients holding `operator.approvals` (the admin token always): who may decide approvals. */
export const APPROVERS: Audience = { roles: ["client"], requiredScopes: ["operator.approvals"] }

/** A new pending approval: `{approval}` (envelope scope `{kind: "run", run_id}` when it belongs to a run). */
export const ApprovalRequested = make("approval.requested", {
  payload: Schema.Struct({ approval: Approval }),
  audience: APPROVERS
})

/** An approval left `pending`: `{approval}` with its resolution. Sent once per transition. */
export const ApprovalResolved = make("approval.resolved", {
  payload: Schema.Struct({ approval: Approval }),
  audience: APPROVERS
})

/** Every event type of this subsystem. */
export const ApprovalEvents = [ApprovalRequested, ApprovalResolved] as const
