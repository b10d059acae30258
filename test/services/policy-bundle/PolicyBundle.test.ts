/**
 * PolicyBundle against every test database: the effective bundle and its
 * snapshot, snapshots deduplicated by SHA-256, evaluation with overrides from
 * storage, evaluation against a stored snapshot, and a missing snapshot.
 */
import { expect, layer } from "@effect/vitest"
import { Effect, Result } from "effect"
import { SqlClient } from "effect/sql"
import { decodePolicyBundle, DEFAULT_POLICY_BUNDLE, mergePolicyBundles } from "../../../services/policy-bundle/bundle.ts"
import { canonicalSha256 } from "../../../services/shared/canonicalJson.ts"
import { PolicyBundle } from "../../../services/policy-bundle/PolicyBundle.ts"
import { PolicyOverrides } from "../../../services/policy-bundle/PolicyOverrides.ts"
import type { PolicyBundleV1 } from "../../../services/policy-bundle/schema.ts"
import { testDatabases } from "../../support/databases.ts"
import { policyLayer } from "./support.ts"

const decode = (input: unknown): PolicyBundleV1 => {
  const result = decodePolicyBundle(input)
  if (Result.isFailure(result)) throw new Error(result.failure)
  return result.success
}

const agentBundle = decode({ v: 1, tools: { default: "require_approval", deny: ["tool.rm*"] }, secrets: { allow: ["scope.public"] } })

for (const db of testDatabases) {
  layer(policyLayer(db, { agent: { source: "/home/agent/policy.yml", bundle: agentBundle } }))(`PolicyBundle on ${db.name}`, (it) => {
    it.effect("merges the sources at start and stores a snapshot of the effective bundle", () =>
      Effect.gen(function*() {
        const policy = yield* PolicyBundle
        const effective = yield* policy.effective
        const expected = mergePolicyBundles([DEFAULT_POLICY_BUNDLE, agentBundle])
        expect(effective.bundle).toEqual(expected)
        expect(effective.bundle.tools).toEqual({ default: "require_approval", allow: ["tool.fs.read"], require_approval: [], deny: ["tool.rm*"] })
        expect(effective.sha256).toBe(canonicalSha256(expected))
        // Pinned as computed before issue 21: stored snapshots are keyed by it.
        expect(effective.sha256).toBe("238b068e6fbe61a8963ca062d1cca6cd6e83c47db8ad152b8ad19c347b25f0c6")
        expect(effective.sources).toEqual({ deployment: "default", agent: "/home/agent/policy.yml", playbook: null })
        const snapshot = yield* policy.getSnapshot(effective.policy_snapshot_id)
        expect(snapshot).toMatchObject({ policy_snapshot_id: effective.policy_snapshot_id, sha256: effective.sha256, bundle: expected })
      }))

    it.effect("deduplicates snapshots by sha256", () =>
      Effect.gen(function*() {
        const policy = yield* PolicyBundle
        const sql = yield* SqlClient.SqlClient
        const effective = yield* policy.effective
        const again = yield* policy.getOrCreateSnapshot(effective.bundle)
        expect(again).toEqual({ policy_snapshot_id: effective.policy_snapshot_id, sha256: effective.sha256 })
        const other = mergePolicyBundles([DEFAULT_POLICY_BUNDLE, decode({ v: 1, tools: { deny: ["x"] } })])
        const [a, b] = yield* Effect.all([policy.getOrCreateSnapshot(other), policy.getOrCreateSnapshot(other)], { concurrency: 2 })
        expect(a).toEqual(b)
        expect(a.policy_snapshot_id).not.toBe(effective.policy_snapshot_id)
        const rows = yield* sql<{ n: number | string }>`SELECT COUNT(*) AS n FROM policy_snapshots`
        expect(Number(rows[0].n)).toBe(2)
      }))

    it.effect("merges a playbook's inline bundle and refuses an invalid one naming the field", () =>
      Effect.gen(function*() {
        const policy = yield* PolicyBundle
        const withPlaybook = yield* policy.effectiveWithPlaybook({ v: 1, network_egress: { allow: ["https://api.example.com/*"] } })
        expect(withPlaybook.sources.playbook).toBe("inline")
        expect(withPlaybook.bundle.network_egress).toEqual({ default: "deny", allow: ["https://api.example.com/*"], require_approval: [], deny: [] })
        expect(withPlaybook.sha256).not.toBe((yield* policy.effective).sha256)
        const error = yield* Effect.flip(policy.effectiveWithPlaybook({ v: 1, network: {} }))
        expect(error).toMatchObject({ _tag: "InvalidRequest", message: "playbook policy bundle: network: unexpected field" })
      }))

    it.effect("applies the agent's active overrides from storage, and suggests one when none matches", () =>
      Effect.gen(function*() {
        const policy = yield* PolicyBundle
        const overrides = yield* PolicyOverrides
        const call = { agent_id: "eval-agent", workspace_id: "ws-1", tool_id: "tool.exec", tool_match_target: "git status --short" }
        const before = yield* policy.evaluateToolCall(call)
        expect(before).toMatchObject({
          decision: "require_approval",
          applied_override_ids: [],
          suggested_overrides: [{ tool_id: "tool.exec", pattern: "git status --short", workspace_id: "ws-1" }]
        })
        expect(before.policy_snapshot_id).toBe((yield* policy.effective).policy_snapshot_id)
        const created = yield* overrides.create({ agent_id: "eval-agent", tool_id: "tool.exec", pattern: "git status*", workspace_id: "ws-1" })
        const after = yield* policy.evaluateToolCall(call)
        expect(after).toMatchObject({ decision: "allow", applied_override_ids: [created.policy_override_id], suggested_overrides: [] })
        expect(after.rules.at(-1)).toEqual({ rule: "policy_override", outcome: "allow", detail: `applied_overrides=${created.policy_override_id}` })
        // Another workspace, another agent, or a denied tool: the override does not apply.
        expect((yield* policy.evaluateToolCall({ ...call, workspace_id: "ws-2" })).decision).toBe("require_approval")
        expect((yield* policy.evaluateToolCall({ ...call, agent_id: "someone" })).decision).toBe("require_approval")
        yield* overrides.create({ agent_id: "eval-agent", tool_id: "tool.rm.all", pattern: "*" })
        expect((yield* policy.evaluateToolCall({ ...call, tool_id: "tool.rm.all" })).decision).toBe("deny")
        yield* overrides.revoke({ policy_override_id: created.policy_override_id })
        expect((yield* policy.evaluateToolCall(call)).decision).toBe("require_approval")
      }))

    it.effect("evaluates against a stored snapshot, and escalates a missing one", () =>
      Effect.gen(function*() {
        const policy = yield* PolicyBundle
        const strict = mergePolicyBundles([decode({ v: 1, tools: { default: "deny", allow: ["tool.exec"] } })])
        const { policy_snapshot_id, sha256 } = yield* policy.getOrCreateSnapshot(strict)
        const call = { agent_id: "snap-agent", tool_id: "tool.exec", tool_match_target: "ls" }
        expect(yield* policy.evaluateToolCall({ ...call, policy_snapshot_id })).toMatchObject({
          decision: "allow",
          policy_snapshot_id,
          sha256
        })
        expect((yield* policy.evaluateToolCall({ ...call, tool_id: "tool.other", policy_snapshot_id })).decision).toBe("deny")
        const missing = crypto.randomUUID()
        expect(yield* policy.evaluateToolCall({ ...call, policy_snapshot_id: missing })).toEqual({
          decision: "require_approval",
          rules: [{ rule: "tool_policy", outcome: "require_approval", detail: `missing policy snapshot: ${missing}` }],
          applied_override_ids: [],
          suggested_overrides: []
        })
      }))
  })
}
