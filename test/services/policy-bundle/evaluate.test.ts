/**
 * Tool-call evaluation as pure functions (reference §1.3 "Tool evaluation",
 * §1.4 "Effect on evaluation").
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { DEFAULT_POLICY_BUNDLE, decodePolicyBundle, mergePolicyBundles } from "../../../services/policy-bundle/bundle.ts"
import {
  applyOverrides,
  evaluateAgainstBundle,
  evaluateDomain,
  isOverridable,
  normalizeUrlForPolicy,
  type ToolCallInput
} from "../../../services/policy-bundle/evaluate.ts"

const bundleOf = (input: unknown) => {
  const decoded = decodePolicyBundle(input)
  if (Result.isFailure(decoded)) throw new Error(decoded.failure)
  return mergePolicyBundles([DEFAULT_POLICY_BUNDLE, decoded.success])
}

const bundle = bundleOf({
  v: 1,
  tools: { default: "require_approval", allow: ["tool.http.get"], deny: ["tool.rm*"], require_approval: ["tool.fs.read.secret"] },
  network_egress: { default: "require_approval", allow: ["https://api.example.com/*"], deny: ["http://*"] },
  secrets: { default: "require_approval", allow: ["scope.public.*"], deny: ["scope.root"] }
})

const call = (input: Partial<ToolCallInput>): ToolCallInput => ({ agent_id: "agent-1", tool_id: "tool.exec", tool_match_target: "git status", ...input })

describe("evaluateDomain", () => {
  it("checks deny, then require_approval, then allow, then the default, on the trimmed target", () => {
    const domain = { default: "allow", allow: ["a*"], require_approval: ["ab*"], deny: ["abc"] } as const
    expect(evaluateDomain(domain, " abc ")).toBe("deny")
    expect(evaluateDomain(domain, "abd")).toBe("require_approval")
    expect(evaluateDomain(domain, "ax")).toBe("allow")
    expect(evaluateDomain({ ...domain, default: "deny" }, "zzz")).toBe("deny")
  })
})

describe("normalizeUrlForPolicy", () => {
  it.each([
    ["https://user:pw@api.example.com:8443/v1/x?token=secret#frag", "https://api.example.com:8443/v1/x"],
    ["https://api.example.com", "https://api.example.com/"],
    ["  ", ""],
    ["not a url?with=query", "not a url"]
  ])("%j → %j", (raw, normalized) => {
    expect(normalizeUrlForPolicy(raw)).toBe(normalized)
  })
})

describe("evaluateAgainstBundle", () => {
  it("emits tool_policy only for a plain call, with the bundle's tool decision", () => {
    expect(evaluateAgainstBundle(bundle, call({ tool_id: "tool.fs.read" }))).toEqual({
      rules: [{ rule: "tool_policy", outcome: "allow", detail: "tool_id=tool.fs.read" }],
      tool: "allow",
      gates: "allow",
      decision: "allow"
    })
    expect(evaluateAgainstBundle(bundle, call({ tool_id: "tool.rm.rf" })).decision).toBe("deny")
  })

  it("adds provenance for untrusted input on tool.exec only, when the bundle asks", () => {
    const untrusted = { source: "web", trusted: false }
    const verdict = evaluateAgainstBundle(bundle, call({ input_provenance: untrusted }))
    expect(verdict.rules).toContainEqual({ rule: "provenance", outcome: "require_approval", detail: "untrusted_shell_requires_approval=true (source=web)" })
    expect(verdict.gates).toBe("require_approval")
    expect(evaluateAgainstBundle(bundle, call({ tool_id: "tool.http.get", input_provenance: untrusted })).rules.map((r) => r.rule)).toEqual(["tool_policy"])
    expect(evaluateAgainstBundle(bundle, call({ input_provenance: { source: "user", trusted: true } })).rules.map((r) => r.rule)).toEqual(["tool_policy"])
    const off = bundleOf({ v: 1, provenance: { untrusted_shell_requires_approval: false } })
    expect(evaluateAgainstBundle({ ...off, provenance: { untrusted_shell_requires_approval: false } }, call({ input_provenance: untrusted })).rules.map((r) => r.rule))
      .toEqual(["tool_policy"])
  })

  it("judges egress on the normalised URL (query dropped) and secrets by the most restrictive scope", () => {
    const verdict = evaluateAgainstBundle(bundle, call({
      tool_id: "tool.http.get",
      url: "https://api.example.com/v1/items?key=secret",
      secret_scopes: ["scope.public.a", "scope.other"]
    }))
    expect(verdict.rules).toEqual([
      { rule: "tool_policy", outcome: "allow", detail: "tool_id=tool.http.get" },
      { rule: "network_egress", outcome: "allow", detail: "https://api.example.com/v1/items" },
      { rule: "secrets", outcome: "require_approval", detail: "scopes=2" }
    ])
    expect(verdict.decision).toBe("require_approval")
    expect(evaluateAgainstBundle(bundle, call({ tool_id: "tool.http.get", url: "http://evil.test/" })).decision).toBe("deny")
    expect(evaluateAgainstBundle(bundle, call({ tool_id: "tool.http.get", secret_scopes: ["scope.root"] })).decision).toBe("deny")
  })
})

describe("applyOverrides", () => {
  const override = (id: string, pattern: string) => ({ policy_override_id: id, pattern })

  it("lifts the tool rule's approval when an active override matches the target", () => {
    const verdict = evaluateAgainstBundle(bundle, call({ tool_match_target: " git status --short " }))
    expect(isOverridable(verdict)).toBe(true)
    expect(applyOverrides(verdict, call({ tool_match_target: " git status --short " }), [override("o1", "git status*"), override("o2", "ls*"), override("o3", "git *")])).toEqual({
      decision: "allow",
      rules: [
        { rule: "tool_policy", outcome: "require_approval", detail: "tool_id=tool.exec" },
        { rule: "policy_override", outcome: "allow", detail: "applied_overrides=o1,o3" }
      ],
      applied_override_ids: ["o1", "o3"],
      suggested_overrides: []
    })
  })

  it("never relaxes a deny, nor the egress, secrets or provenance gates", () => {
    const denied = evaluateAgainstBundle(bundle, call({ url: "http://evil.test/" }))
    expect(isOverridable(denied)).toBe(false)
    expect(applyOverrides(denied, call({}), [override("o1", "*")]).decision).toBe("deny")

    const gated = call({ url: "https://unknown.test/x", secret_scopes: ["scope.other"], input_provenance: { source: "web", trusted: false } })
    const result = applyOverrides(evaluateAgainstBundle(bundle, gated), gated, [override("o1", "git*")])
    expect(result.decision).toBe("require_approval")
    expect(result.applied_override_ids).toEqual(["o1"])
    expect(result.rules.map((r) => r.rule)).toEqual(["tool_policy", "provenance", "network_egress", "secrets", "policy_override"])
  })

  it("does not look at overrides when the tool rule allows", () => {
    const allowed = call({ tool_id: "tool.fs.read", url: "https://unknown.test/" })
    const verdict = evaluateAgainstBundle(bundle, allowed)
    expect(verdict.decision).toBe("require_approval")
    expect(isOverridable(verdict)).toBe(false)
    expect(applyOverrides(verdict, allowed, [override("o1", "*")])).toMatchObject({ applied_override_ids: [], suggested_overrides: [] })
  })

  it("suggests the match target as a pattern when it passes the guardrail, with the workspace", () => {
    const input = call({ tool_match_target: "git status", workspace_id: "ws-1" })
    expect(applyOverrides(evaluateAgainstBundle(bundle, input), input, []).suggested_overrides).toEqual([
      { tool_id: "tool.exec", pattern: "git status", workspace_id: "ws-1" }
    ])
    const wide = call({ tool_match_target: "rm -rf *.tmp" })
    expect(applyOverrides(evaluateAgainstBundle(bundle, wide), wide, []).suggested_overrides).toEqual([])
  })
})
