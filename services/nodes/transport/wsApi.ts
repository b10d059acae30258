/**
 * Node request types (gateway-api.md "WebSocket API"; reference §5.3;
 * docs/nodes.md): `capability.ready` and `attempt.evidence`, nodes only, no
 * device scope needed (as the spec says); a node may send both with its
 * scoped node token.
 */
import { WsAttemptEvidenceRequest, WsCapabilityReadyRequest } from "../schema.ts"
import { make, NODE } from "../../../src/ws/api/message.ts"

/** `capability.ready` (nodes): the ready set becomes advertised ∩ declared; broadcasts `capability.ready`. */
export const CapabilityReady = make("capability.ready", {
  scope: null,
  roles: NODE,
  nodeToken: true,
  payload: WsCapabilityReadyRequest,
  description: "A node declares which of its advertised capabilities are ready; the ready set becomes advertised ∩ " +
    "declared (dispatch also needs the capability in its pairing's allowlist). Announced as `capability.ready`.",
  example: { payload: { capabilities: [{ id: "demo.echo", version: "1.0.0" }] } }
})

/**
 * `attempt.evidence` (nodes): evidence of an attempt this node is executing (256 KiB characters at most);
 * broadcast as the `attempt.evidence` event. `not_found` for an attempt not executing, `forbidden` for
 * another node's attempt, `invalid_request` with `details {max_chars, actual_chars}` when too large.
 * `evidence.attachments` are stored as artifacts of the attempt (`invalid_request` for invalid ones,
 * `quota_exceeded` over the bundle's artifact quotas).
 */
export const AttemptEvidence = make("attempt.evidence", {
  scope: null,
  roles: NODE,
  nodeToken: true,
  payload: WsAttemptEvidenceRequest,
  description: "Evidence of an attempt the node is executing (at most 256 KiB characters); announced as " +
    "`attempt.evidence`. `not_found` for an attempt not executing, `forbidden` for another node's. An object's " +
    "`attachments: [{kind, mime_type?, labels?, bytes_base64, metadata?}]` (at most 16, each at most 5 MiB decoded, " +
    "standard padded base64, else `invalid_request`) are stored as artifacts of the attempt and announced as " +
    "`artifact.attached`; the broadcast evidence lists their refs instead of the bytes; `quota_exceeded` over the " +
    "policy bundle's artifact quotas (docs/artifacts.md).",
  example: { payload: { run_id: "run-8f2c", step_id: "0", attempt_id: "att-1", evidence: { screenshot: "s3://bucket/shot.png" } } }
})
