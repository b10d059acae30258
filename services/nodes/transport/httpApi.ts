/**
 * Nodes over HTTP (additions to gateway-api.md; docs/nodes.md): `GET /nodes`
 * (operator.read) lists every node with a pairing record and its live state;
 * `POST /nodes/:node_id/dispatch` (operator.admin) runs one `task.execute` on
 * that node, so operators can try a node before the workflow engine exists.
 */
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { NodeDisconnected, NodeTaskFailed, NodeTaskTimeout, NoEligibleNode } from "../errors.ts"
import {
  NodeDispatchRequest,
  NodeDispatchResponse,
  NodeIdParam,
  NodeListResponse
} from "../schema.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { InstanceQuery } from "../../backplane/schema.ts"

/** `GET /nodes`, `POST /nodes/:node_id/dispatch`. */
export const NodesApi = HttpApiGroup.make("nodes")
  .add(
    HttpApiEndpoint.get("list", "/nodes", { query: InstanceQuery, success: NodeListResponse, error: REQUEST_ERRORS })
      .annotate(Access, scope("operator.read")).annotateMerge(documented(
        "Every node with a pairing record and its live state: connections on any instance of the cluster and the " +
          "instances holding them (`instance_ids`; `?instance=<id>`: that instance's connections only), tasks in " +
          "flight, the capabilities it declared ready (advertised ∩ declared; dispatch also needs the allowlist) and " +
          "its allowlist. Here once the approved demo node is ready.",
        {
          setup: "until curl -s \"$GW/nodes\" -H \"authorization: Bearer $TOKEN\" | jq -e '.nodes[] | select(.pairing_id == 1) | .ready_capabilities | length == 1' > /dev/null; do sleep 0.2; done",
          response: { status: "ok", nodes: [{ pairing_id: 1, pairing_status: "approved", connected: true, ready_capabilities: [{ id: "demo.echo" }] }] }
        }
      )),
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
    }).annotate(Access, scope("operator.admin")).annotateMerge(documented(
      "Runs one `task.execute` of `capability` on that node (paired, connected, the capability ready and allowlisted) " +
        "and answers its result and evidence, so operators can try a node without a workflow. 409 " +
        "`no_eligible_node`, 502 `node_task_failed`, 503 `node_disconnected`, 504 `node_task_timeout`.",
      {
        setup: "NODE_ID=$(curl -s \"$GW/nodes\" -H \"authorization: Bearer $TOKEN\" | jq -r '.nodes[] | select(.pairing_id == 1) | .node_id')",
        path: "/nodes/$NODE_ID/dispatch",
        body: { capability: "demo.echo", action: { text: "hello" } },
        response: { node_id: "…", run_id: "dispatch-…" }
      }
    ))
  )
  .middleware(Authentication)
  .middleware(RequestErrors)
