/**
 * Wire schemas of nodes: capabilities, dispatch and evidence (gateway-api.md
 * "WebSocket API": `capability.ready`, `attempt.evidence`, `task.execute`;
 * reference §4 "Dispatch eligibility", §5.2 limits, §5.3). The two HTTP
 * routes (`GET /nodes`, `POST /nodes/:node_id/dispatch`) are additions to the
 * spec (docs/nodes.md).
 *
 * @module
 */
import { Schema } from "effect"
import { ArtifactKind, ArtifactRef } from "../artifacts/schema.ts"
import { PairingStatus, TrustLevel } from "../pairing/schema.ts"
import { bounded, type JsonBounds, LARGE_JSON } from "../shared/json.ts"
import { CapabilityDescriptor, MAX_CAPABILITIES } from "../ws-sessions/schema.ts"

/** A namespaced capability id (`cli.exec`), as in {@link CapabilityDescriptor}. */
export const CapabilityId = Schema.String.check(
  Schema.isMaxLength(128, { expected: "at most 128 characters" }),
  Schema.isPattern(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/, { expected: "a namespaced capability id like cli.exec" })
).annotate({ description: "Namespaced capability id, e.g. cli.exec." })

/** A run, step or attempt id sent by a peer: 1..128 characters. */
const TaskId = Schema.String.check(
  Schema.isMinLength(1, { expected: "a non-empty string" }),
  Schema.isMaxLength(128, { expected: "at most 128 characters" })
)

/** A node id in a path: a device id (`dev_…`), 1..128 characters. */
export const NodeIdParam = TaskId

/** Longest `attempt.evidence` evidence, in characters of its JSON text (reference §5.2: 256 KiB). */
export const MAX_EVIDENCE_CHARS = 256 * 1024

/**
 * Shape bounds of evidence checked while decoding (depth, keys and items); its
 * size is checked afterwards against {@link MAX_EVIDENCE_CHARS}, so the
 * refusal can carry `{max_chars, actual_chars}` (reference §5.2). The byte
 * bound here only guards the walk: a WebSocket message is already at most
 * `SVC_WS_MAX_MESSAGE_BYTES`.
 */
const EVIDENCE_SHAPE: JsonBounds = { maxDepth: LARGE_JSON.maxDepth, maxEntries: LARGE_JSON.maxEntries, maxBytes: 64 * 1024 * 1024 }

/** Dispatch timeout bounds, in milliseconds: default 30 s, 1 ms .. 10 min. */
export const DISPATCH_TIMEOUT_MS = { default: 30_000, min: 1, max: 600_000 } as const

// ---------------------------------------------------------------------------
// capability.ready (node → gateway)

/** `capability.ready` payload (nodes only): the capabilities now ready; the ready set is this ∩ advertised. */
export const WsCapabilityReadyRequest = Schema.Struct({
  capabilities: Schema.Array(CapabilityDescriptor).check(
    Schema.isMaxLength(MAX_CAPABILITIES, { expected: `at most ${MAX_CAPABILITIES} capabilities` })
  )
}).annotate({ identifier: "WsCapabilityReadyRequest" })
export type WsCapabilityReadyRequest = typeof WsCapabilityReadyRequest.Type

// ---------------------------------------------------------------------------
// task.execute (gateway → node)

/** `task.execute` payload: `{run_id, step_id, attempt_id, action}` (reference §5.3). */
export const WsTaskExecutePayload = Schema.StructWithRest(
  Schema.Struct({
    run_id: Schema.String,
    step_id: Schema.String,
    attempt_id: Schema.String,
    action: Schema.Unknown.annotate({ description: "The ActionPrimitive to perform." })
  }),
  [Schema.Record(Schema.String, Schema.Unknown)]
).annotate({ identifier: "WsTaskExecutePayload" })
export type WsTaskExecutePayload = typeof WsTaskExecutePayload.Type

/** A node's `ok:true` answer to `task.execute`: `{result?, evidence?}`. An error answer carries evidence in `details.evidence`. */
export const WsTaskExecuteResult = Schema.Struct({
  result: Schema.optionalKey(Schema.Unknown),
  evidence: Schema.optionalKey(Schema.Unknown)
}).annotate({ identifier: "WsTaskExecuteResult" })
export type WsTaskExecuteResult = typeof WsTaskExecuteResult.Type

// ---------------------------------------------------------------------------
// attempt.evidence (node → gateway) and its event

/** Largest decoded attachment of `attempt.evidence`, in bytes (5 MiB; the WebSocket message limit applies first). */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024

/** Most attachments one `attempt.evidence` carries. */
export const MAX_ATTACHMENTS = 16

/**
 * One attachment of `attempt.evidence` (`evidence.attachments[]`, issue 24
 * §4; docs/nodes.md "Attachments"): bytes stored as an artifact of the
 * attempt. `bytes_base64` is standard base64 (RFC 4648 §4, padded), at most
 * {@link MAX_ATTACHMENT_BYTES} decoded; `labels` at most 16 of 1..64
 * characters; `metadata` any JSON object.
 */
export const NodeAttachment = Schema.Struct({
  kind: ArtifactKind,
  mime_type: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(255, { expected: "at most 255 characters" }))),
  labels: Schema.optionalKey(
    Schema.Array(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(64, { expected: "at most 64 characters" }))).check(
      Schema.isMaxLength(16, { expected: "at most 16 labels" })
    )
  ),
  bytes_base64: Schema.String,
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "NodeAttachment" })
export type NodeAttachment = typeof NodeAttachment.Type

/** `evidence.attachments`: at most {@link MAX_ATTACHMENTS}. */
export const NodeAttachments = Schema.Array(NodeAttachment).check(
  Schema.isMaxLength(MAX_ATTACHMENTS, { expected: `at most ${MAX_ATTACHMENTS} attachments` })
)

/** `attempt.evidence` payload (nodes only): evidence of an attempt the node is executing. */
export const WsAttemptEvidenceRequest = Schema.Struct({
  run_id: TaskId,
  step_id: TaskId,
  attempt_id: TaskId,
  evidence: bounded(Schema.Unknown, EVIDENCE_SHAPE).annotate({
    description: `Any JSON, at most ${MAX_EVIDENCE_CHARS} characters when serialised (not counting the attachments' bytes_base64). ` +
      "An object's `attachments: [{kind, mime_type?, labels?, bytes_base64, metadata?}]` (at most 16, each at most 5 MiB decoded) " +
      "are stored as artifacts of the attempt (`artifact.attached`); the broadcast evidence lists their refs instead."
  })
}).annotate({ identifier: "WsAttemptEvidenceRequest" })
export type WsAttemptEvidenceRequest = typeof WsAttemptEvidenceRequest.Type

/** `attempt.evidence` event payload: `{node_id, run_id, step_id, attempt_id, evidence}` (scope `{kind:"run", run_id}`). */
export const AttemptEvidence = Schema.Struct({
  node_id: Schema.String,
  run_id: Schema.String,
  step_id: Schema.String,
  attempt_id: Schema.String,
  evidence: Schema.Unknown
}).annotate({ identifier: "AttemptEvidence" })
export type AttemptEvidence = typeof AttemptEvidence.Type

// ---------------------------------------------------------------------------
// HTTP: POST /nodes/:node_id/dispatch, GET /nodes (additions to the spec)

/** `POST /nodes/:node_id/dispatch` body. */
export const NodeDispatchRequest = Schema.Struct({
  capability: CapabilityId,
  action: bounded(Schema.Record(Schema.String, Schema.Unknown), LARGE_JSON).annotate({
    description: "The action sent to the node as `task.execute`'s `action` (an ActionPrimitive in workflow use); forwarded as is."
  }),
  timeout_ms: Schema.optionalKey(
    Schema.Int.check(
      Schema.isBetween({ minimum: DISPATCH_TIMEOUT_MS.min, maximum: DISPATCH_TIMEOUT_MS.max }, {
        expected: `an integer from ${DISPATCH_TIMEOUT_MS.min} to ${DISPATCH_TIMEOUT_MS.max}`
      })
    ).annotate({ description: `How long to wait for the node's answer (default ${DISPATCH_TIMEOUT_MS.default}).` })
  )
}).annotate({ identifier: "NodeDispatchRequest" })
export type NodeDispatchRequest = typeof NodeDispatchRequest.Type

/**
 * What a dispatch returns: the node that ran the task, the task's ids, the
 * node's `result` and `evidence` (absent when it sent none), and the refs of
 * the artifacts it attached.
 */
export const NodeDispatchResponse = Schema.Struct({
  node_id: Schema.String,
  run_id: Schema.String,
  step_id: Schema.String,
  attempt_id: Schema.String,
  result: Schema.optionalKey(Schema.Unknown),
  evidence: Schema.optionalKey(Schema.Unknown),
  artifacts: Schema.optionalKey(Schema.Array(ArtifactRef).annotate({
    description: "The artifacts the node attached through `attempt.evidence` while it ran the task (absent when none)."
  }))
}).annotate({ identifier: "NodeDispatchResponse" })
export type NodeDispatchResponse = typeof NodeDispatchResponse.Type

/** One node of `GET /nodes`: its pairing and its live state in the cluster (or on one instance: `?instance=`). */
export const NodeSummary = Schema.Struct({
  node_id: Schema.String,
  label: Schema.optionalKey(Schema.String),
  pairing_id: Schema.Int,
  pairing_status: PairingStatus,
  trust_level: Schema.NullOr(TrustLevel),
  connected: Schema.Boolean,
  connections: Schema.Int.annotate({ description: "Live WebSocket connections of the node, on any instance (or on `?instance=`)." }),
  instance_ids: Schema.Array(Schema.String).annotate({
    description: "The gateway instances holding those connections, each once, in connection order (`GET /status` `peers[].instance_id`)."
  }),
  in_flight: Schema.Int.annotate({ description: "Tasks dispatched from the instance answering and not answered yet." }),
  ready_capabilities: Schema.Array(CapabilityDescriptor).annotate({
    description: "Union of the ready sets of its live connections (advertised descriptors)."
  }),
  capability_allowlist: Schema.Array(CapabilityDescriptor),
  last_seen_at: Schema.String
}).annotate({ identifier: "NodeSummary" })
export type NodeSummary = typeof NodeSummary.Type

/** `GET /nodes`: every node with a pairing record, in the pairing list's order (newest request first). */
export const NodeListResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  nodes: Schema.Array(NodeSummary)
}).annotate({ identifier: "NodeListResponse" })
export type NodeListResponse = typeof NodeListResponse.Type
