/**
 * WebSocket diagnostics (gateway-api.md "Runtime and diagnostics";
 * docs/websocket.md "Presence and connections"): `GET /connections` and
 * `GET /presence`, operator.read. Principals are summarised as token kind and
 * scopes, never a token.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { CapabilityDescriptor, PresenceEntry, WsPeerRole } from "../schema.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS } from "../../../src/http/api/errors.ts"
import { InstanceQuery } from "../../backplane/schema.ts"

/** One live connection in `GET /connections`. */
export const ConnectionSummary = Schema.Struct({
  connection_id: Schema.String,
  role: WsPeerRole,
  device_id: Schema.String,
  label: Schema.NullOr(Schema.String),
  platform: Schema.NullOr(Schema.String),
  version: Schema.NullOr(Schema.String),
  mode: Schema.NullOr(Schema.String),
  capabilities: Schema.Array(CapabilityDescriptor),
  ready_capabilities: Schema.Array(Schema.String),
  connected_at: Schema.String,
  instance_id: Schema.String.annotate({ description: "The gateway instance holding the connection (`GET /status` `peers[].instance_id`)." }),
  remote_address: Schema.NullOr(Schema.String),
  token_kind: Schema.Literals(["admin", "device", "node"]),
  scopes: Schema.Array(Schema.String)
}).annotate({ identifier: "ConnectionSummary" })
export type ConnectionSummary = typeof ConnectionSummary.Type

/** `GET /connections`: statistics and one summary per live connection of the cluster (or of `?instance=`). */
export const ConnectionsResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  total: Schema.Int,
  by_role: Schema.Struct({ client: Schema.Int, node: Schema.Int }),
  totalClients: Schema.Int,
  capabilityCounts: Schema.Record(Schema.String, Schema.Int),
  connections: Schema.Array(ConnectionSummary)
}).annotate({ identifier: "ConnectionsResponse" })
export type ConnectionsResponse = typeof ConnectionsResponse.Type

/** `GET /presence`: the gateway itself (`reason: "self"`) first, then the other instances and every device seen within the TTL. */
export const PresenceResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  generated_at: Schema.String,
  entries: Schema.Array(PresenceEntry)
}).annotate({ identifier: "PresenceResponse" })
export type PresenceResponse = typeof PresenceResponse.Type

/** Diagnostics of the WebSocket API. */
export const DiagnosticsApi = HttpApiGroup.make("diagnostics")
  .add(
    HttpApiEndpoint.get("connections", "/connections", { query: InstanceQuery, success: ConnectionsResponse, error: REQUEST_ERRORS }).annotateMerge(documented(
      "The WebSocket connections that completed the handshake, on every instance of the cluster (`?instance=<id>`: " +
        "that instance's only): counts by role and capability, and one summary per connection (device, role, " +
        "capabilities, token kind and scopes, never a token; `instance_id`: the instance holding it).",
      { response: { status: "ok", connections: [{ role: "node", ready_capabilities: ["demo.echo"], token_kind: "node" }] } }
    )),
    HttpApiEndpoint.get("presence", "/presence", { query: InstanceQuery, success: PresenceResponse, error: REQUEST_ERRORS }).annotateMerge(documented(
      "Presence: the gateway itself (`reason: \"self\"`) first, then the cluster's other live instances " +
        "(`role: \"gateway\"`) and every device seen (connected or beaconed) within the presence TTL, on any instance; " +
        "`gateway_instance_id` says which instance holds each entry (`?instance=<id>`: that instance's entries only).",
      { response: { status: "ok", entries: [{ reason: "self" }] } }
    ))
  )
  .annotate(Access, scope("operator.read"))
  .middleware(Authentication)
  .middleware(RequestErrors)
