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
} from "../../../services/pairing/schema.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { Access, scope } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

const params = { id: PairingIdFromString }
const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** `GET /pairings`, `POST /pairings/:id/approve`, `POST /pairings/:id/deny`, `POST /pairings/:id/revoke`. */
export const PairingApi = HttpApiGroup.make("pairing")
  .add(
    HttpApiEndpoint.get("list", "/pairings", {
      query: { status: Schema.optionalKey(PairingStatusFilter) },
      success: PairingListResponse,
      error: REQUEST_ERRORS
    }),
    HttpApiEndpoint.post("approve", "/pairings/:id/approve", {
      params,
      payload: PairingApproveRequest,
      success: PairingResponse,
      error: errors
    }),
    HttpApiEndpoint.post("deny", "/pairings/:id/deny", {
      params,
      payload: PairingDecisionRequest,
      success: PairingResponse,
      error: errors
    }),
    HttpApiEndpoint.post("revoke", "/pairings/:id/revoke", {
      params,
      payload: PairingDecisionRequest,
      success: PairingResponse,
      error: errors
    })
  )
  .annotate(Access, scope("operator.pairing"))
