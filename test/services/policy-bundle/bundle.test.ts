/**
 * Policy bundles as data (reference §1.3): strict decoding with defaults,
 * the most-restrictive merge and the canonical SHA-256.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { DEFAULT_POLICY_BUNDLE, decodePolicyBundle, mergePolicyBundles, mostRestrictive } from "../../../services/policy-bundle/bundle.ts"
import type { PolicyBundleV1 } from "../../../services/policy-bundle/schema.ts"

const decode = (input: unknown): PolicyBundleV1 => {
  const result = decodePolicyBundle(input)
  if (Result.isFailure(result)) throw new Error(result.failure)
  return result.success
}
const failure = (input: unknown): string => {
  const result = decodePolicyBundle(input)
  if (Result.isSuccess(result)) throw new Error("expected a failure")
  return result.failure
}

describe("decodePolicyBundle", () => {
  it("applies the schema defaults of a present section and trims patterns", () => {
    expect(decode({ v: 1, tools: { allow: [" tool.a "] }, artifacts: {}, provenance: {} })).toEqual({
      v: 1,
      tools: { default: "deny", allow: ["tool.a"], require_approval: [], deny: [] },
      artifacts: { default: "allow" },
      provenance: { untrusted_shell_requires_approval: true }
    })
  })

  it.each([
    ["an unknown top-level key", { v: 1, tool: {} }, /^tool: unexpected field/],
    ["an unknown nested key", { v: 1, tools: { alow: [] } }, /^tools\.alow: unexpected field/],
    ["an unknown key in retention", { v: 1, artifacts: { retention: { days: 3 } } }, /^artifacts\.retention\.days: unexpected field/],
    ["a wrong version", { v: 2 }, /^v: expected 1, got 2/],
    ["a missing version", {}, /^v: missing required field/],
    ["an unknown decision", { v: 1, secrets: { default: "maybe" } }, /^secrets\.default: expected one of allow, require_approval, deny/],
    ["a blank pattern", { v: 1, tools: { deny: ["  "] } }, /^tools\.deny\[0\]: expected a non-empty pattern/],
    ["a non-positive retention", { v: 1, artifacts: { retention_days: 0 } }, /^artifacts\.retention_days: expected a positive integer/],
    ["not an object", [1], /^bundle: expected a policy bundle object/],
    ["null (an empty YAML file)", null, /^bundle: expected a policy bundle object/]
  ])("rejects %s naming the field", (_name, input, message) => {
    expect(failure(input)).toMatch(message)
  })
})

describe("mergePolicyBundles", () => {
  it("keeps the built-in bundle as is (every domain present)", () => {
    expect(mergePolicyBundles([DEFAULT_POLICY_BUNDLE])).toEqual({
      v: 1,
      tools: { default: "require_approval", allow: ["tool.fs.read"], require_approval: [], deny: [] },
      network_egress: { default: "require_approval", allow: [], require_approval: [], deny: [] },
      secrets: { default: "require_approval", allow: [], require_approval: [], deny: [] },
      connectors: { default: "require_approval", allow: ["telegram:*"], require_approval: [], deny: [] },
      artifacts: { default: "allow" },
      provenance: { untrusted_shell_requires_approval: true }
    })
  })

  it("never merges a domain default to allow, and takes the most restrictive default", () => {
    const allowAll = decode({ v: 1, tools: { default: "allow" }, network_egress: { default: "allow" } })
    const denyEgress = decode({ v: 1, network_egress: { default: "deny" } })
    const merged = mergePolicyBundles([allowAll, undefined, denyEgress])
    expect(merged.tools.default).toBe("require_approval")
    expect(merged.network_egress.default).toBe("deny")
    expect(merged.secrets).toEqual({ default: "require_approval", allow: [], require_approval: [], deny: [] })
  })

  it("unions the lists in first-seen order without duplicates", () => {
    const a = decode({ v: 1, tools: { allow: ["a", "b"], deny: ["x"] } })
    const b = decode({ v: 1, tools: { allow: ["b", "c"], require_approval: ["r"], deny: ["x", "y"] } })
    expect(mergePolicyBundles([a, b]).tools).toEqual({
      default: "deny",
      allow: ["a", "b", "c"],
      require_approval: ["r"],
      deny: ["x", "y"]
    })
  })

  it("takes the most restrictive artifacts default and the minimum of every retention and quota number", () => {
    const a = decode({
      v: 1,
      artifacts: {
        retention_days: 30,
        max_bytes: 1000,
        retention: { default_days: 10, by_label: { log: 7, trace: 3 }, by_sensitivity: { normal: 9 } },
        quota: { by_label_sensitivity: { log: { normal: 500, sensitive: 100 } } }
      }
    })
    const b = decode({
      v: 1,
      artifacts: {
        default: "require_approval",
        retention_days: 14,
        retention: { default_days: 20, by_label: { log: 2 }, by_sensitivity: { normal: 12, sensitive: 1 } },
        quota: { default_max_bytes: 64, by_label_sensitivity: { log: { normal: 800 }, shot: { sensitive: 5 } } }
      }
    })
    expect(mergePolicyBundles([a, b]).artifacts).toEqual({
      default: "require_approval",
      retention_days: 14,
      max_bytes: 1000,
      retention: { default_days: 10, by_label: { log: 2, trace: 3 }, by_sensitivity: { normal: 9, sensitive: 1 } },
      quota: { default_max_bytes: 64, by_label_sensitivity: { log: { normal: 500, sensitive: 100 }, shot: { sensitive: 5 } } }
    })
  })

  it("sets the provenance flag when any bundle does, and keeps it on when none says", () => {
    const off = decode({ v: 1, provenance: { untrusted_shell_requires_approval: false } })
    const on = decode({ v: 1, provenance: {} })
    expect(mergePolicyBundles([off]).provenance.untrusted_shell_requires_approval).toBe(false)
    expect(mergePolicyBundles([off, on]).provenance.untrusted_shell_requires_approval).toBe(true)
    expect(mergePolicyBundles([decode({ v: 1 })]).provenance.untrusted_shell_requires_approval).toBe(true)
  })

  it("orders decisions deny > require_approval > allow", () => {
    expect(mostRestrictive("allow", "deny")).toBe("deny")
    expect(mostRestrictive("require_approval", "allow")).toBe("require_approval")
    expect(mostRestrictive("allow", "allow")).toBe("allow")
  })
})
