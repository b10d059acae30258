/**
 * Events of the policy-bundle subsystem (docs/policy-bundle.md "Events"):
 * override lifecycle changes, `{override}` after the change is stored, to
 * operator clients holding `operator.admin` (the admin token always).
 *
 * @module
 */
import { Schema } from "effect"
import { type Audience, make } from "../ws-sessions/GatewayEvent.ts"
import { PolicyOverride } from "./schema.ts"

/** Operator clients with `operator.admin` (the admin token always passes). */
export const OPERATOR_ADMINS: Audience = { roles: ["client"], requiredScopes: ["operator.admin"] }

const payload = Schema.Struct({ override: PolicyOverride })

/** An override was created (HTTP, or an approval resolved with "approve always"): `{override}`. */
export const PolicyOverrideCreated = make("policy_override.created", { payload, audience: OPERATOR_ADMINS })

/** An override was revoked: `{override}` with `revoked_at`, `revoked_by`, `revoked_reason`. */
export const PolicyOverrideRevoked = make("policy_override.revoked", { payload, audience: OPERATOR_ADMINS })

/** An override reached its `expires_at` and is now `expired`: `{override}`. */
export const PolicyOverrideExpired = make("policy_override.expired", { payload, audience: OPERATOR_ADMINS })

/** Every event type of this subsystem. */
export const PolicyBundleEvents = [PolicyOverrideCreated, PolicyOverrideRevoked, PolicyOverrideExpired] as const
