/**
 * Node pairing over HTTP (gateway-api.md "Pairing (node enrollment)";
 * docs/pairing.md): device tokens need operator.pairing (rule 3). Every
 * route answers the pairing record; none ever carries a scoped node token
 * (it goes only to the node, over WebSocket).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import {
  PairingApproveRequest,
  PairingDecisionRequest,
  PairingIdFromString,
  PairingListResponse,
  PairingResponse,
  PairingStatusFilter
} from "../schema.ts"
import { NotFound } from "../../shared/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

const params = { id: PairingIdFromString }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `GET /pairings`, `POST /pairings/:id/approve`, `POST /pairings/:id/deny`, `POST /pairings/:id/revoke`. */
export const PairingApi = HttpApiGroup.make("pairing")
  .add(
    HttpApiEndpoint.get("list", "/pairings", {
      query: { status: Schema.optionalKey(PairingStatusFilter) },
      success: PairingListResponse,
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Pairing records, optionally only those with `status`. A node that connects with the admin token or a node " +
        "device token and is not paired yet becomes a `pending` pairing (announced as `pairing.requested`). Here a " +
        "demo node is started first (`npx svc-gateway node`, in a clone after `npm run build`).",
      {
        setup: [
          "SVC_ADMIN_TOKEN=$TOKEN npx svc-gateway node --url \"$GW\" --identity ~/.svc/node-a.json > ~/.svc/node-a.log 2>&1 &",
          "until curl -s \"$GW/pairings?status=pending\" -H \"authorization: Bearer $TOKEN\" | jq -e '.pairings | length == 1' > /dev/null; do sleep 0.2; done"
        ].join("\n"),
        query: "status=pending",
        response: { status: "ok", pairings: [{ pairing_id: 1, status: "pending", trust_level: null, node: { capabilities: [{ id: "demo.echo" }] } }] }
      }
    )),
    HttpApiEndpoint.post("approve", "/pairings/:id/approve", {
      params,
      payload: PairingApproveRequest,
      success: PairingResponse,
      error: errors
    }).annotateMerge(documented(
      "Approves a pending pairing with a `trust_level` (`local` or `remote`) and the capabilities the node may serve " +
        "(`capability_allowlist`), both required. The node receives its scoped node token over WebSocket " +
        "(`pairing.approved`, never over HTTP) and reconnects with it.",
      {
        path: "/pairings/1/approve",
        body: { trust_level: "local", capability_allowlist: [{ id: "demo.echo" }] },
        response: { status: "ok", pairing: { pairing_id: 1, status: "approved", trust_level: "local", capability_allowlist: [{ id: "demo.echo" }] } }
      }
    )),
    HttpApiEndpoint.post("deny", "/pairings/:id/deny", {
      params,
      payload: PairingDecisionRequest,
      success: PairingResponse,
      error: errors
    }).annotateMerge(documented(
      "Denies a pending pairing (404 when it is not pending); the node's connections close with 4001. Here a second " +
        "demo node asks first.",
      {
        setup: [
          "SVC_ADMIN_TOKEN=$TOKEN npx svc-gateway node --url \"$GW\" --identity ~/.svc/node-b.json > ~/.svc/node-b.log 2>&1 &",
          "until curl -s \"$GW/pairings?status=pending\" -H \"authorization: Bearer $TOKEN\" | jq -e '.pairings | length == 1' > /dev/null; do sleep 0.2; done"
        ].join("\n"),
        path: "/pairings/2/deny",
        body: { reason: "unknown device" },
        response: { status: "ok", pairing: { pairing_id: 2, status: "denied", resolution: { decision: "denied", reason: "unknown device" } } }
      }
    )),
    HttpApiEndpoint.post("revoke", "/pairings/:id/revoke", {
      params,
      payload: PairingDecisionRequest,
      success: PairingResponse,
      error: errors
    }).annotateMerge(documented(
      "Revokes a pairing in any state but revoked: its scoped token is refused from now on and the node's " +
        "connections close with 4001.",
      { path: "/pairings/2/revoke", body: { reason: "retired" }, response: { status: "ok", pairing: { pairing_id: 2, status: "revoked" } } }
    ))
  )
  .annotate(Access, scope("operator.pairing"))
  .middleware(Authentication)
  .middleware(RequestErrors)
