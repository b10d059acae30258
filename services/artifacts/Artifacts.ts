/**
 * Run-scoped artifacts (issue 24 §4; reference §6.9; docs/artifacts.md):
 * stored bytes ({@link ArtifactStore}) with their metadata rows
 * ({@link ArtifactsRepo}), served only through the run that produced them.
 *
 * - `put` stores bytes of any producer (an Http step's `http_trace`, a
 *   memory export labelled `memory`, `memory_v1`, `export`) and answers the
 *   `ArtifactRef` (`size_bytes`, `sha256` hex of the bytes); the bytes are
 *   written before the row, so a row always has its bytes until retention
 *   deletes them. Announced as `artifact.created`. The effective bundle's
 *   `artifacts.max_bytes` and `artifacts.quota` are checked first
 *   (quota.ts; `ArtifactQuotaExceeded`, nothing stored). `attach` is `put`
 *   for a node's attachment, also announced as `artifact.attached`.
 * - The run-scoped reads (`metadataForRun`, `bytesForRun`) check, in order:
 *   the id is a UUID (400 `invalid_request`), the artifact exists (404), it
 *   has a durable run/step/attempt link (403 `forbidden`), it is the named
 *   run's (404: another run's artifact is not revealed), the run's policy
 *   snapshot (else the effective bundle) allows artifacts:
 *   `artifacts.default: deny` → 403 `forbidden`, `require_approval` → 403
 *   `require_approval`. Bytes deleted by retention → 404. A served fetch is
 *   announced as `artifact.fetched` and both it and every refusal after the
 *   id check join the audit chain `gateway.artifacts` (`artifact.fetched`,
 *   `artifact.fetch_denied` with the reason). With a store that signs URLs
 *   (S3) the bytes route answers a presigned GET valid 60 s instead of the bytes.
 * - `sweep` applies retention by label and sensitivity, then `max_total_bytes`
 *   (retention.ts).
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { PolicyBundle } from "../policy-bundle/PolicyBundle.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { isoTime } from "../shared/time.ts"
import { EventBus } from "../ws-sessions/EventBus.ts"
import { ArtifactsRepo } from "./ArtifactsRepo.ts"
import { ArtifactStore } from "./ArtifactStore.ts"
import { ArtifactApprovalRequired, ArtifactQuotaExceeded, Forbidden, InvalidRequest, NotFound } from "./errors.ts"
import { ArtifactAttached, ArtifactCreated, ArtifactFetched } from "./events.ts"
import { quotaRules } from "./quota.ts"
import { retentionCutoff, retentionDaysFor, shortestRetentionDays, SWEEP_BATCH } from "./retention.ts"
import {
  type ArtifactLink,
  type ArtifactMetadataResponse,
  type ArtifactRef,
  isArtifactId,
  type NewArtifact,
  type StoredArtifact
} from "./schema.ts"

/** The audit chain of artifact fetches and refusals. */
export const ARTIFACTS_CHAIN = "gateway.artifacts"

/** Later than any creation time (ISO-8601 text compares in time order): the whole table for `livePage`. */
const END_OF_TIME = "9999-12-31T23:59:59.999Z"

/** The workspace of artifacts whose producer names none. */
export const DEFAULT_WORKSPACE_ID = "default"

/** The refusals of the run-scoped reads. */
export type ArtifactAccessError = InvalidRequest | NotFound | Forbidden | ArtifactApprovalRequired

/** An artifact's bytes as served. */
export interface ArtifactBytes {
  readonly artifact: ArtifactRef
  readonly bytes: Uint8Array
}

/** An artifact served by its store: a presigned URL valid {@link PRESIGNED_GET_TTL_SECONDS} (the route answers 302). */
export interface ArtifactLocation {
  readonly artifact: ArtifactRef
  readonly location: string
}

/** How long a presigned GET of the run-scoped bytes route is valid, in seconds (reference §6.9: 60 s). */
export const PRESIGNED_GET_TTL_SECONDS = 60

const UNSCOPED = "artifact fetch APIs must be scope-bound; use GET /runs/:runId/artifacts/:id"
const UNSCOPED_METADATA = "artifact fetch APIs must be scope-bound; use GET /runs/:runId/artifacts/:id/metadata"

/** Artifacts: storing them and serving them through their run. */
export class Artifacts extends Context.Service<Artifacts, {
  /**
   * Stores `artifact` (bytes and metadata) and answers its ref;
   * `artifact.created` after it is stored. `ArtifactQuotaExceeded` (nothing
   * stored) when it is larger than the effective bundle's
   * `artifacts.max_bytes` or would take a rule of `artifacts.quota` over its limit.
   */
  readonly put: (artifact: NewArtifact) => Effect.Effect<ArtifactRef, ArtifactQuotaExceeded>
  /**
   * `put` for an artifact a producer attaches to an attempt's record (a
   * node's `attempt.evidence`): also announced as `artifact.attached`
   * `{artifact, run_id, step_id, attempt_id}`.
   */
  readonly attach: (artifact: NewArtifact & { readonly link: ArtifactLink }) => Effect.Effect<ArtifactRef, ArtifactQuotaExceeded>
  /** The stored artifact `artifact_id`, or `undefined` (also for an id that is not a UUID). */
  readonly get: (artifact_id: string) => Effect.Effect<StoredArtifact | undefined>
  /** The bytes of `artifact_id` whatever its link (for producers' own routes, e.g. memory exports); `undefined` when none. */
  readonly read: (artifact_id: string) => Effect.Effect<ArtifactBytes | undefined>
  /** The refs of the artifacts of an attempt, oldest first. */
  readonly listForAttempt: (attempt_id: string) => Effect.Effect<ReadonlyArray<ArtifactRef>>
  /** `GET /runs/:runId/artifacts/:id/metadata`: `{artifact, scope}` after the checks of the module documentation. */
  readonly metadataForRun: (run_id: string, raw_id: string) => Effect.Effect<ArtifactMetadataResponse, ArtifactAccessError>
  /**
   * `GET /runs/:runId/artifacts/:id`: after the same checks, the bytes, or
   * with a store that signs URLs (S3) a presigned GET valid
   * {@link PRESIGNED_GET_TTL_SECONDS}; `artifact.fetched` either way.
   */
  readonly bytesForRun: (run_id: string, raw_id: string) => Effect.Effect<ArtifactBytes | ArtifactLocation, ArtifactAccessError>
  /**
   * Deletes the bytes of the artifacts older than their retention under the
   * effective bundle (retention.ts: by label and sensitivity, else the
   * default), then, while the bytes not deleted total more than
   * `artifacts.max_total_bytes`, the oldest ones; marks their rows
   * `deleted_at` and answers how many. Nothing without a rule or a cap.
   */
  readonly sweep: Effect.Effect<number>
  /** The 400 of the unscoped `GET /artifacts/:id` (`metadata` for `/artifacts/:id/metadata`). */
  readonly unscoped: (metadata: boolean) => Effect.Effect<never, InvalidRequest>
}>()("svc-gateway/artifacts/Artifacts") {
  /** Needs {@link ArtifactsRepo}, {@link ArtifactStore}, `PolicyBundle`, `EventBus` and `DomainEvents`. */
  static readonly layerNoDeps = Layer.effect(
    Artifacts,
    Effect.gen(function*() {
      const repo = yield* ArtifactsRepo
      const store = yield* ArtifactStore
      const policy = yield* PolicyBundle
      const events = yield* EventBus
      const domain = yield* DomainEvents

      const scopeOf = (link: ArtifactLink | undefined, artifact_id: string) =>
        link === undefined ? { kind: "artifact", artifact_id } : { kind: "run", run_id: link.run_id }

      const decide = (type: string, fields: Record<string, unknown>) =>
        domain.publishOrLog(Decision, { chain: ARTIFACTS_CHAIN, action: { type, ...fields } })

      const refuse = <E extends ArtifactAccessError>(error: E, artifact_id: string, run_id: string) =>
        Effect.andThen(
          decide("artifact.fetch_denied", { artifact_id, run_id, reason: error.message }),
          Effect.fail(error)
        )

      /** The checks shared by both run-scoped reads. */
      const checked = Effect.fnUntraced(function*(run_id: string, raw_id: string) {
        if (!isArtifactId(raw_id)) return yield* new InvalidRequest({ message: "invalid artifact id" })
        const stored = yield* repo.get(raw_id.toLowerCase())
        if (stored === undefined) return yield* new NotFound({ message: "artifact not found" })
        const link = stored.link
        if (link === undefined) {
          return yield* refuse(new Forbidden({ message: "artifact has no durable run linkage" }), raw_id, run_id)
        }
        // Another run's artifact is not revealed: it does not exist for this run.
        if (link.run_id !== run_id) return yield* refuse(new NotFound({ message: "artifact not found" }), raw_id, run_id)
        const snapshot = link.policy_snapshot_id === undefined ? undefined : yield* policy.getSnapshot(link.policy_snapshot_id)
        const decision = (snapshot?.bundle ?? (yield* policy.effective).bundle).artifacts.default
        if (decision === "deny") {
          return yield* refuse(new Forbidden({ message: "the run's policy denies artifact access" }), raw_id, run_id)
        }
        if (decision === "require_approval") {
          return yield* refuse(new ArtifactApprovalRequired({ message: "artifact access requires approval" }), raw_id, run_id)
        }
        return { stored, link }
      })

      /** `ArtifactQuotaExceeded` when `artifact` is over `max_bytes` or would take a quota rule over its limit (quota.ts). */
      const checkQuota = Effect.fnUntraced(function*(artifact: NewArtifact) {
        const limits = (yield* policy.effective).bundle.artifacts
        const size_bytes = artifact.bytes.byteLength
        if (limits.max_bytes !== undefined && size_bytes > limits.max_bytes) {
          return yield* new ArtifactQuotaExceeded({
            message: `artifact of ${size_bytes} bytes is larger than artifacts.max_bytes (${limits.max_bytes})`,
            details: { rule: "max_bytes", limit_bytes: limits.max_bytes, used_bytes: 0, size_bytes }
          })
        }
        for (const { limit_bytes, pool, rule } of quotaRules(limits, artifact.labels ?? [], artifact.sensitivity ?? "normal")) {
          const used_bytes = yield* repo.liveBytes(pool)
          if (used_bytes + size_bytes > limit_bytes) {
            return yield* new ArtifactQuotaExceeded({
              message: `artifact quota exceeded: ${rule} allows ${limit_bytes} bytes, ${used_bytes} are stored, this artifact has ${size_bytes}`,
              details: { rule, limit_bytes, used_bytes, size_bytes }
            })
          }
        }
      })

      const put = Effect.fn("Artifacts.put")(function*(artifact: NewArtifact) {
        yield* checkQuota(artifact)
        const artifact_id = randomUUID()
        const created_at = isoTime(yield* Clock.currentTimeMillis)
        const link = artifact.link
        yield* store.put(artifact_id, artifact.bytes)
        const row = {
          artifact_id,
          kind: artifact.kind,
          created_at,
          mime_type: artifact.mime_type ?? null,
          size_bytes: artifact.bytes.byteLength,
          sha256: sha256Hex(artifact.bytes),
          labels: JSON.stringify([...new Set(artifact.labels ?? [])]),
          metadata: artifact.metadata === undefined ? null : JSON.stringify(artifact.metadata),
          sensitivity: artifact.sensitivity ?? "normal",
          workspace_id: link?.workspace_id ?? DEFAULT_WORKSPACE_ID,
          agent_id: link?.agent_id ?? DEFAULT_AGENT_ID,
          run_id: link?.run_id ?? null,
          step_id: link?.step_id ?? null,
          attempt_id: link?.attempt_id ?? null,
          policy_snapshot_id: link?.policy_snapshot_id ?? null
        }
        yield* repo.insert(row)
        const ref: ArtifactRef = {
          artifact_id,
          uri: `artifact://${artifact_id}`,
          kind: artifact.kind,
          created_at,
          ...(artifact.mime_type !== undefined ? { mime_type: artifact.mime_type } : {}),
          size_bytes: row.size_bytes,
          sha256: row.sha256,
          labels: JSON.parse(row.labels) as Array<string>,
          ...(artifact.metadata !== undefined ? { metadata: { ...artifact.metadata } } : {})
        }
        yield* events.publish(
          ArtifactCreated,
          link === undefined ? { artifact: ref } : { artifact: ref, run_id: link.run_id, step_id: link.step_id, attempt_id: link.attempt_id },
          scopeOf(link, artifact_id)
        )
        return ref
      })

      return Artifacts.of({
        put,

        attach: Effect.fn("Artifacts.attach")(function*(artifact: NewArtifact & { readonly link: ArtifactLink }) {
          const ref = yield* put(artifact)
          const { run_id, step_id, attempt_id } = artifact.link
          yield* events.publish(ArtifactAttached, { artifact: ref, run_id, step_id, attempt_id }, { kind: "run", run_id })
          return ref
        }),


        get: (artifact_id) => (isArtifactId(artifact_id) ? repo.get(artifact_id.toLowerCase()) : Effect.succeed(undefined)),

        read: Effect.fn("Artifacts.read")(function*(artifact_id: string) {
          if (!isArtifactId(artifact_id)) return undefined
          const stored = yield* repo.get(artifact_id.toLowerCase())
          if (stored === undefined || stored.deleted_at !== undefined) return undefined
          const bytes = yield* store.get(stored.ref.artifact_id)
          return bytes === undefined ? undefined : { artifact: stored.ref, bytes }
        }),

        listForAttempt: (attempt_id) => Effect.map(repo.listForAttempt(attempt_id), (found) => found.map((s) => s.ref)),

        metadataForRun: Effect.fn("Artifacts.metadataForRun")(function*(run_id: string, raw_id: string) {
          const { link, stored } = yield* checked(run_id, raw_id)
          return {
            artifact: stored.ref,
            scope: {
              workspace_id: link.workspace_id ?? DEFAULT_WORKSPACE_ID,
              agent_id: link.agent_id ?? DEFAULT_AGENT_ID,
              run_id: link.run_id,
              step_id: link.step_id,
              attempt_id: link.attempt_id,
              sensitivity: stored.sensitivity,
              policy_snapshot_id: link.policy_snapshot_id ?? null
            }
          }
        }),

        bytesForRun: Effect.fn("Artifacts.bytesForRun")(function*(run_id: string, raw_id: string) {
          const { stored } = yield* checked(run_id, raw_id)
          const artifact_id = stored.ref.artifact_id
          const deleted = new NotFound({ message: "artifact bytes were deleted by retention" })
          if (stored.deleted_at !== undefined) return yield* deleted
          const location = yield* store.presignGet(artifact_id, PRESIGNED_GET_TTL_SECONDS, { content_type: stored.ref.mime_type })
          const bytes = location === undefined ? yield* store.get(artifact_id) : undefined
          if (location === undefined && bytes === undefined) return yield* deleted
          yield* decide("artifact.fetched", { artifact_id, run_id })
          yield* events.publish(ArtifactFetched, { artifact_id, run_id }, { kind: "run", run_id })
          return location !== undefined ? { artifact: stored.ref, location } : { artifact: stored.ref, bytes: bytes! }
        }),

        sweep: Effect.gen(function*() {
          const limits = (yield* policy.effective).bundle.artifacts
          const now = yield* Clock.currentTimeMillis
          const at = isoTime(now)
          let swept = 0
          const drop = Effect.fnUntraced(function*(artifact: StoredArtifact) {
            yield* store.remove(artifact.ref.artifact_id)
            const marked = yield* repo.markDeleted(artifact.ref.artifact_id, at)
            if (marked) swept++
            return marked
          })
          // Retention: page through everything older than the shortest rule; each artifact by its own rule.
          const shortest = shortestRetentionDays(limits)
          if (shortest !== undefined) {
            let after: { created_at: string; artifact_id: string } | undefined
            while (true) {
              const page = yield* repo.livePage(retentionCutoff(now, shortest), SWEEP_BATCH, after)
              for (const artifact of page) {
                const days = retentionDaysFor(limits, artifact.ref.labels, artifact.sensitivity)
                if (days !== undefined && artifact.ref.created_at < retentionCutoff(now, days)) yield* drop(artifact)
              }
              const last = page.at(-1)
              if (page.length < SWEEP_BATCH || last === undefined) break
              after = { created_at: last.ref.created_at, artifact_id: last.ref.artifact_id }
            }
          }
          // The overall cap: the oldest bytes go first until the rest fit.
          const cap = limits.max_total_bytes
          if (cap !== undefined) {
            let total = yield* repo.liveBytes({})
            while (total > cap) {
              const page = yield* repo.livePage(END_OF_TIME, SWEEP_BATCH)
              if (page.length === 0) break
              for (const artifact of page) {
                if (total <= cap) break
                if (yield* drop(artifact)) total -= artifact.ref.size_bytes ?? 0
              }
            }
          }
          return swept
        }).pipe(Effect.withSpan("Artifacts.sweep")),

        unscoped: (metadata) => Effect.fail(new InvalidRequest({ message: metadata ? UNSCOPED_METADATA : UNSCOPED }))
      })
    })
  )

  /**
   * Wired for the gateway: {@link Artifacts.layerNoDeps} over its migrated
   * repository, the store the settings choose (`SVC_ARTIFACT_STORE`: the
   * filesystem under `$SVC_HOME/artifacts`, or S3), the policy bundle and the event bus (layer values shared with the rest of the
   * graph). Needs `GatewayConfig`, a `SqlClient` and `DomainEvents`.
   */
  static readonly layer = Artifacts.layerNoDeps.pipe(
    Layer.provide(ArtifactsRepo.layer),
    Layer.provide(ArtifactStore.layer),
    Layer.provide(PolicyBundle.layer),
    Layer.provide(EventBus.layer)
  )
}
