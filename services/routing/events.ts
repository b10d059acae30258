/**
 * Events of the routing configuration (gateway-api.md "Routing
 * configuration"; reference §7.2): `routing.config.updated` after each new
 * revision is committed (by `PUT /routing/config` or a revert), without an
 * envelope scope (it concerns the whole gateway), to operator clients holding
 * `operator.admin` (the admin token always): the ones who may read the
 * configuration.
 *
 * @module
 */
import { Schema } from "effect"
import { type Audience, make } from "../ws-sessions/GatewayEvent.ts"

/** Operator clients with `operator.admin` (the admin token always passes). */
export const ROUTING_ADMINS: Audience = { roles: ["client"], requiredScopes: ["operator.admin"] }

/** `routing.config.updated`'s payload. */
export const RoutingConfigUpdatedPayload = Schema.Struct({
  revision: Schema.Int,
  reason: Schema.optionalKey(Schema.String),
  /** Lowercase hex SHA-256 of the configuration's canonical JSON (sorted keys, no whitespace). */
  config_sha256: Schema.String,
  reverted_from_revision: Schema.optionalKey(Schema.Int)
})

/** A new revision of the routing configuration is in force. */
export const RoutingConfigUpdated = make("routing.config.updated", { payload: RoutingConfigUpdatedPayload, audience: ROUTING_ADMINS })

/** Every event type of this subsystem. */
export const RoutingEvents = [RoutingConfigUpdated] as const
