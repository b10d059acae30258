/**
 * Nodes over HTTP (additions to gateway-api.md; docs/nodes.md): `GET /nodes`
 * (operator.read) lists every node with a pairing record and its live state;
 * `POST /nodes/:node_id/dispatch` (operator.admin) runs one `task.execute` on
 * that node, so operators can try a node before the workflow engine exists.
 */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { NodeDisconnected, NodeTaskFailed, NodeTaskTimeout, NoEligibleNode } from "../../../services/nodes/errors.ts"
import {
  NodeDispatchRequest,
  NodeDispatchResponse,
  NodeIdParam,
  NodeListResponse
} from "../../../services/nodes/schema.ts"
import { Access, scope } from "./access.ts"
import { AUTH_ERRORS, REQUEST_ERRORS, wire } from "./errors.ts"

/** `GET /nodes`, `POST /nodes/:node_id/dispatch`. */
export const NodesApi = HttpApiGroup.make("nodes")
  .add(
    HttpApiEndpoint.get("list", "/nodes", { success: NodeListResponse, error: AUTH_ERRORS })
      .annotate(Access, scope("operator.read")),
    HttpApiEndpoint.post("dispatch", "/nodes/:node_id/dispatch", {
      params: { node_id: NodeIdParam },
      payload: NodeDispatchRequest,
      success: NodeDispatchResponse,
      error: [
        ...REQUEST_ERRORS,
        wire(NoEligibleNode),
        wire(NodeTaskFailed),
        wire(NodeDisconnected),
        wire(NodeTaskTimeout)
      ]
    }).annotate(Access, scope("operator.admin"))
  )
