/**
 * The effective policy bundle and tool-call evaluation (reference §1.3,
 * §1.4; gateway-api.md "Policy" `GET /policy/bundle`; docs/policy-bundle.md).
 *
 * At start the sources (`PolicySources`: deployment or built-in bundle, agent
 * bundle) are merged most-restrictive-first into the effective bundle, its
 * SHA-256 over canonical JSON (RFC 8785, services/shared/canonicalJson.ts)
 * computed and a policy snapshot stored for it. Tool calls
 * are evaluated in-process against the effective bundle or a stored
 * snapshot (a run's pinned policy), consulting the active overrides only
 * when they could change the decision.
 *
 * Storage failures are defects (500 over HTTP); evaluation never fails.
 *
 * @module
 */
import { Clock, Context, Effect, Layer, Result, Schema } from "effect"
import { canonicalJson } from "../shared/canonicalJson.ts"
import { InvalidRequest } from "../shared/errors.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { decodePolicyBundle, mergePolicyBundles } from "./bundle.ts"
import { applyOverrides, evaluateAgainstBundle, isOverridable, type ToolCallInput } from "./evaluate.ts"
import { PolicyOverrides } from "./PolicyOverrides.ts"
import { PolicySnapshotRepo } from "./PolicySnapshotRepo.ts"
import { PolicySources } from "./PolicySources.ts"
import { type EffectivePolicyBundle, MergedPolicyBundle, type PolicyBundleV1, type ToolCallEvaluation } from "./schema.ts"

export type { ToolCallInput } from "./evaluate.ts"

/** A stored snapshot's identity. */
export interface PolicySnapshotRef {
  readonly policy_snapshot_id: string
  /** Lowercase hex SHA-256 of the bundle's canonical JSON. */
  readonly sha256: string
}

/** The effective bundle (`GET /policy/bundle`'s `effective`) and the snapshot stored for it. */
export type EffectivePolicy = EffectivePolicyBundle & PolicySnapshotRef

/** A stored snapshot with its bundle. */
export interface PolicySnapshot extends PolicySnapshotRef {
  readonly bundle: MergedPolicyBundle
  /** ISO-8601 UTC. */
  readonly created_at: string
}

const decodeStoredBundle = Schema.decodeUnknownResult(Schema.fromJsonString(MergedPolicyBundle))

/** Snapshots kept decoded in memory (they are immutable). */
const SNAPSHOT_CACHE_SIZE = 256

/** The policy bundle service. */
export class PolicyBundle extends Context.Service<PolicyBundle, {
  /** The effective bundle loaded at start: `{sha256, bundle, sources, policy_snapshot_id}`. */
  readonly effective: Effect.Effect<EffectivePolicy>
  /**
   * The effective bundle with a playbook's inline bundle merged in
   * (`sources.playbook: "inline"`), its snapshot stored. `playbook` is
   * decoded strictly like a file; a failure is `InvalidRequest` (400) naming
   * the field.
   */
  readonly effectiveWithPlaybook: (playbook: unknown) => Effect.Effect<EffectivePolicy, InvalidRequest>
  /**
   * Evaluates a tool call (reference §1.3 "Tool evaluation"): rules
   * `tool_policy`, then `provenance`, `network_egress`, `secrets` when they
   * apply, and `policy_override` when active overrides of the agent lifted
   * the tool rule's approval (never a deny, never another rule's approval).
   * `suggested_overrides` holds the match target as a pattern when an
   * override could help and the target passes the guardrail. With
   * `policy_snapshot_id` the call is judged by that stored snapshot; a
   * missing one gives `require_approval` with detail
   * `missing policy snapshot: <id>`.
   */
  readonly evaluateToolCall: (input: ToolCallInput) => Effect.Effect<ToolCallEvaluation>
  /** Stores `bundle` as a snapshot unless one with the same SHA-256 exists; returns the stored one's id and digest. */
  readonly getOrCreateSnapshot: (bundle: MergedPolicyBundle) => Effect.Effect<PolicySnapshotRef>
  /** The snapshot `id` with its bundle, or `undefined` when missing (or unreadable, which is logged). */
  readonly getSnapshot: (id: string) => Effect.Effect<PolicySnapshot | undefined>
}>()("svc-gateway/policy-bundle/PolicyBundle") {
  /** Needs {@link PolicySources}, {@link PolicySnapshotRepo} and {@link PolicyOverrides}. */
  static readonly layerNoDeps = Layer.effect(
    PolicyBundle,
    Effect.gen(function*() {
      const sources = yield* PolicySources
      const snapshots = yield* PolicySnapshotRepo
      const overrides = yield* PolicyOverrides
      const cache = new Map<string, PolicySnapshot>()
      const remember = (snapshot: PolicySnapshot) => {
        if (cache.size >= SNAPSHOT_CACHE_SIZE) cache.delete(cache.keys().next().value!)
        cache.set(snapshot.policy_snapshot_id, snapshot)
      }

      const getOrCreateSnapshot = Effect.fn("PolicyBundle.getOrCreateSnapshot")(function*(bundle: MergedPolicyBundle) {
        const json = canonicalJson(bundle)
        const sha256 = sha256Hex(json)
        const row = yield* snapshots.getOrCreate({
          policy_snapshot_id: crypto.randomUUID(),
          sha256,
          bundle_json: json,
          created_at: new Date(yield* Clock.currentTimeMillis).toISOString()
        })
        return { policy_snapshot_id: row.policy_snapshot_id, sha256: row.sha256 } satisfies PolicySnapshotRef as PolicySnapshotRef
      })

      const getSnapshot = Effect.fn("PolicyBundle.getSnapshot")(function*(id: string) {
        const cached = cache.get(id)
        if (cached !== undefined) return cached
        const row = yield* snapshots.findById(id)
        if (row === undefined) return undefined
        const bundle = decodeStoredBundle(row.bundle_json)
        if (Result.isFailure(bundle)) {
          yield* Effect.logError("stored policy snapshot is unreadable").pipe(Effect.annotateLogs({ policy_snapshot_id: id }))
          return undefined
        }
        const snapshot: PolicySnapshot = { policy_snapshot_id: row.policy_snapshot_id, sha256: row.sha256, bundle: bundle.success, created_at: row.created_at }
        remember(snapshot)
        return snapshot
      })

      const effectiveOf = Effect.fnUntraced(function*(playbook: PolicyBundleV1 | undefined) {
        const bundle = mergePolicyBundles([sources.deployment.bundle, sources.agent?.bundle, playbook])
        const ref = yield* getOrCreateSnapshot(bundle)
        return {
          ...ref,
          bundle,
          sources: {
            deployment: sources.deployment.source,
            agent: sources.agent?.source ?? null,
            playbook: playbook === undefined ? null : "inline"
          }
        } satisfies EffectivePolicy as EffectivePolicy
      })

      const effective = yield* effectiveOf(undefined)
      yield* Effect.logInfo("policy bundle loaded").pipe(Effect.annotateLogs({
        sha256: effective.sha256,
        deployment: effective.sources.deployment,
        agent: effective.sources.agent ?? "none"
      }))

      const effectiveWithPlaybook = Effect.fn("PolicyBundle.effectiveWithPlaybook")(function*(playbook: unknown) {
        const decoded = decodePolicyBundle(playbook)
        if (Result.isFailure(decoded)) return yield* new InvalidRequest({ message: `playbook policy bundle: ${decoded.failure}` })
        return yield* effectiveOf(decoded.success)
      })

      const evaluateToolCall = Effect.fn("PolicyBundle.evaluateToolCall")(function*(input: ToolCallInput) {
        let target: { readonly bundle: MergedPolicyBundle; readonly policy_snapshot_id: string; readonly sha256: string } = effective
        if (input.policy_snapshot_id !== undefined) {
          const snapshot = yield* getSnapshot(input.policy_snapshot_id)
          if (snapshot === undefined) {
            return {
              decision: "require_approval",
              rules: [{ rule: "tool_policy", outcome: "require_approval", detail: `missing policy snapshot: ${input.policy_snapshot_id}` }],
              applied_override_ids: [],
              suggested_overrides: []
            } satisfies ToolCallEvaluation as ToolCallEvaluation
          }
          target = snapshot
        }
        const verdict = evaluateAgainstBundle(target.bundle, input)
        const active = isOverridable(verdict)
          ? yield* overrides.activeFor({ agent_id: input.agent_id, tool_id: input.tool_id, workspace_id: input.workspace_id })
          : []
        return {
          ...applyOverrides(verdict, input, active),
          policy_snapshot_id: target.policy_snapshot_id,
          sha256: target.sha256
        } satisfies ToolCallEvaluation as ToolCallEvaluation
      })

      return PolicyBundle.of({
        effective: Effect.succeed(effective),
        effectiveWithPlaybook,
        evaluateToolCall,
        getOrCreateSnapshot,
        getSnapshot
      })
    })
  )

  /**
   * Wired: the sources from the settings (`PolicySources.layer`, which fails
   * the start with `PolicyBundleLoadError` on a bad deployment bundle),
   * snapshots in the database, and {@link PolicyOverrides} (also provided,
   * with its expiry fiber). Needs `GatewayConfig` and a `SqlClient`.
   */
  static readonly layer = PolicyBundle.layerNoDeps.pipe(
    Layer.provide(PolicySnapshotRepo.layer),
    Layer.provideMerge(PolicyOverrides.layer),
    Layer.provide(PolicySources.layer)
  )
}
