/**
 * Wire schemas of run-scoped artifacts (gateway-api.md "Artifacts";
 * reference §6.9; docs/artifacts.md): the strict {@link ArtifactRef}, the
 * durable link of an artifact to the execution that produced it
 * ({@link ArtifactLink}), the scope the run-scoped metadata route answers
 * ({@link ArtifactScope}), and what {@link NewArtifact} a producer hands to
 * `Artifacts.put`.
 *
 * @module
 */
import { Schema } from "effect"
import { UUID_PATTERN } from "../shared/schemas.ts"

/** What an artifact holds. */
export const ArtifactKind = Schema.Literals(["screenshot", "diff", "log", "dom_snapshot", "http_trace", "receipt", "file", "other"])
export type ArtifactKind = typeof ArtifactKind.Type

/** The sensitivity class of an artifact (the policy bundle's `artifacts.retention.by_sensitivity` keys). */
export const ArtifactSensitivity = Schema.Literals(["normal", "sensitive"])
export type ArtifactSensitivity = typeof ArtifactSensitivity.Type


/** True when `raw` is an artifact id: a UUID (any version, either case). */
export const isArtifactId = (raw: string): boolean => UUID_PATTERN.test(raw)

/** An artifact id: a UUID (`crypto.randomUUID()`); also the path of its `uri` (`artifact://<id>`). */
export const ArtifactId = Schema.String.check(Schema.isPattern(UUID_PATTERN, { expected: "an artifact id (a UUID)" }))

/** `artifact://<id>`: how records reference an artifact. */
export const artifactUri = (artifact_id: string): string => `artifact://${artifact_id}`

/**
 * A reference to stored bytes (reference §6.9 `ArtifactRef`, strict):
 * `size_bytes` and `sha256` (hex) of the bytes as stored; `labels` free
 * strings (`memory`, `export`, …); `metadata` any JSON object.
 */
export const ArtifactRef = Schema.Struct({
  artifact_id: Schema.String,
  uri: Schema.String,
  kind: ArtifactKind,
  created_at: Schema.String,
  mime_type: Schema.optionalKey(Schema.String),
  size_bytes: Schema.optionalKey(Schema.Int),
  sha256: Schema.optionalKey(Schema.String),
  labels: Schema.Array(Schema.String),
  metadata: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "ArtifactRef" })
export type ArtifactRef = typeof ArtifactRef.Type

/**
 * The durable link of an artifact to the attempt that produced it and the
 * policy snapshot of its run. An artifact without `run_id`, `step_id` and
 * `attempt_id` (a memory export) is never served by the run-scoped routes.
 */
export interface ArtifactLink {
  readonly run_id: string
  readonly step_id: string
  readonly attempt_id: string
  readonly policy_snapshot_id?: string | undefined
  /** The run's agent (from its key), `default` otherwise. */
  readonly agent_id?: string | undefined
  readonly workspace_id?: string | undefined
}

/** What a producer stores (`Artifacts.put`). */
export interface NewArtifact {
  readonly kind: ArtifactKind
  readonly bytes: Uint8Array
  readonly mime_type?: string | undefined
  readonly labels?: ReadonlyArray<string> | undefined
  readonly metadata?: Readonly<Record<string, unknown>> | undefined
  readonly sensitivity?: ArtifactSensitivity | undefined
  readonly link?: ArtifactLink | undefined
}

/** The execution scope of a linked artifact (`GET /runs/:runId/artifacts/:id/metadata`). */
export const ArtifactScope = Schema.Struct({
  workspace_id: Schema.String,
  agent_id: Schema.String,
  run_id: Schema.String,
  step_id: Schema.String,
  attempt_id: Schema.String,
  sensitivity: ArtifactSensitivity,
  policy_snapshot_id: Schema.NullOr(Schema.String)
}).annotate({ identifier: "ArtifactScope" })
export type ArtifactScope = typeof ArtifactScope.Type

/** `GET /runs/:runId/artifacts/:id/metadata`. */
export const ArtifactMetadataResponse = Schema.Struct({
  artifact: ArtifactRef,
  scope: ArtifactScope
}).annotate({ identifier: "ArtifactMetadataResponse" })
export type ArtifactMetadataResponse = typeof ArtifactMetadataResponse.Type

/** A stored artifact: its ref, its link (when linked), its sensitivity and when its bytes were deleted. */
export interface StoredArtifact {
  readonly ref: ArtifactRef
  readonly link: ArtifactLink | undefined
  readonly sensitivity: ArtifactSensitivity
  readonly deleted_at: string | undefined
}

/** `artifact.created` / `artifact.attached`: the ref and, when linked, where it belongs. */
export const ArtifactEventPayload = Schema.Struct({
  artifact: ArtifactRef,
  run_id: Schema.optionalKey(Schema.String),
  step_id: Schema.optionalKey(Schema.String),
  attempt_id: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "ArtifactEvent" })
export type ArtifactEventPayload = typeof ArtifactEventPayload.Type

/** `artifact.fetched`: which artifact of which run was served. */
export const ArtifactFetchedPayload = Schema.Struct({
  artifact_id: Schema.String,
  run_id: Schema.String
}).annotate({ identifier: "ArtifactFetched" })
export type ArtifactFetchedPayload = typeof ArtifactFetchedPayload.Type
