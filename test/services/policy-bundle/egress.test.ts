/**
 * Egress rules against the many spellings of one destination (issue 20 §3):
 * a deny written for 127.0.0.1 or 169.254.169.254 also judges localhost,
 * upper case, trailing dots, IPv4-mapped IPv6 and the default port; the
 * post-DNS address forms; the canonical detail.
 */
import { describe, expect, it } from "@effect/vitest"
import { Result } from "effect"
import { DEFAULT_POLICY_BUNDLE, decodePolicyBundle, mergePolicyBundles } from "../../../services/policy-bundle/bundle.ts"
import { addressTargets, canonicalHost, egressTargets, evaluateEgressTargets, firstMatch } from "../../../services/policy-bundle/egress.ts"
import { evaluateAgainstBundle, normalizeUrlForPolicy } from "../../../services/policy-bundle/evaluate.ts"

const bundle = (() => {
  const decoded = decodePolicyBundle({
    v: 1,
    tools: { allow: ["tool.http.fetch"] },
    network_egress: { default: "allow", deny: ["http://127.0.0.1:*", "http://169.254.169.254/*"] }
  })
  if (Result.isFailure(decoded)) throw new Error(decoded.failure)
  return mergePolicyBundles([DEFAULT_POLICY_BUNDLE, decoded.success])
})()

const egressOf = (url: string) =>
  evaluateAgainstBundle(bundle, { agent_id: "default", tool_id: "tool.http.fetch", tool_match_target: url, url }).rules
    .find((r) => r.rule === "network_egress")

describe("egress rules see every spelling of a denied destination", () => {
  it.each([
    "http://[::ffff:127.0.0.1]:9000/x",
    "http://[::ffff:7f00:1]:9000/x",
    "http://[0:0:0:0:0:ffff:7f00:1]:9000/x",
    "http://localhost:9000/x",
    "http://LOCALHOST:9000/x",
    "http://localhost.:9000/x",
    "http://api.localhost:9000/x",
    "http://127.0.0.1./x",
    "http://127.0.0.1/x",
    "http://0.0.0.0:9000/x",
    "http://2130706433:9000/x",
    "http://[::ffff:169.254.169.254]/latest/meta-data",
    "http://169.254.169.254:80/latest/meta-data",
    "HTTP://169.254.169.254./latest"
  ])("%s is denied", (url) => {
    expect(egressOf(url)?.outcome).toBe("deny")
  })

  it("other destinations get the default (require_approval: a merged default is never allow)", () => {
    expect(egressOf("http://127.0.0.2:9000/x")?.outcome).toBe("require_approval")
    expect(egressOf("https://169.254.169.254/latest")?.outcome).toBe("require_approval")
    expect(egressOf("https://example.com/")?.outcome).toBe("require_approval")
  })

  it("the detail is the canonical form, without credentials, query or fragment", () => {
    expect(egressOf("http://user:pw@[::ffff:7f00:1]:9000/x?token=t#f")?.detail).toBe("http://127.0.0.1:9000/x")
    expect(normalizeUrlForPolicy("HTTPS://API.Example.COM./v1")).toBe("https://api.example.com/v1")
    expect(normalizeUrlForPolicy("http://[::1]:8080")).toBe("http://[::1]:8080/")
  })

  it("an allow written for 127.0.0.1 allows localhost too (the same address)", () => {
    const domain = { default: "deny", allow: ["http://127.0.0.1:*"], require_approval: [], deny: [] } as const
    expect(evaluateEgressTargets(domain, egressTargets("http://localhost:9000/"))).toBe("allow")
    expect(evaluateEgressTargets(domain, egressTargets("http://example.com:9000/"))).toBe("deny")
  })
})

describe("canonicalHost", () => {
  it.each([
    ["LOCALHOST.", "localhost"],
    ["Example.COM..", "example.com"],
    ["[::FFFF:7F00:1]", "127.0.0.1"],
    ["::ffff:169.254.169.254", "169.254.169.254"],
    ["[0:0:0:0:0:0:0:1]", "[::1]"],
    ["10.0.0.1", "10.0.0.1"]
  ])("%s → %s", (host, canonical) => {
    expect(canonicalHost(host)).toBe(canonical)
  })
})

describe("addressTargets (the post-DNS check)", () => {
  it("writes the URL with the address a name resolved to", () => {
    expect(addressTargets("http://svc.example:9000/a?b=c", "127.0.0.1")).toEqual(["http://127.0.0.1:9000/a"])
    expect(addressTargets("http://svc.example/a", "::ffff:7f00:1")).toEqual(["http://127.0.0.1/a", "http://127.0.0.1:80/a"])
    expect(addressTargets("https://svc.example/", "::1")).toEqual(["https://[::1]/", "https://[::1]:443/"])
    expect(addressTargets("http://svc.example/", "not-an-ip")).toEqual([])
  })

  it("finds the deny pattern a resolved address falls under", () => {
    expect(firstMatch(bundle.network_egress.deny, addressTargets("http://svc.example:9000/x", "127.0.0.1"))).toBe("http://127.0.0.1:*")
    expect(firstMatch(bundle.network_egress.deny, addressTargets("http://metadata.example/latest", "::ffff:a9fe:a9fe"))).toBe(
      "http://169.254.169.254/*"
    )
    expect(firstMatch(bundle.network_egress.deny, addressTargets("http://svc.example:9000/x", "10.1.2.3"))).toBe(undefined)
  })
})
