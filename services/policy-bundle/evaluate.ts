/**
 * Tool-call evaluation against a bundle (reference §1.3 "Tool evaluation",
 * §1.4 "Effect on evaluation"), as pure functions: the bundle's verdict
 * ({@link evaluateAgainstBundle}), then the effect of the matching active
 * overrides and the suggested override ({@link applyOverrides}). The
 * `PolicyBundle` service looks the overrides up in between, only when they
 * could matter ({@link isOverridable}).
 *
 * @module
 */
import { mostRestrictive } from "./bundle.ts"
import { egressTargets, evaluateEgressTargets } from "./egress.ts"
import { isSafeSuggestedOverridePattern } from "./guardrails.ts"
import type { BundleDecision, MergedPolicyBundle, PolicyDomain, SuggestedOverride, ToolCallEvaluation, ToolRuleDecision } from "./schema.ts"
import { wildcardMatch } from "./wildcard.ts"

/** A tool call to judge. */
export interface ToolCallInput {
  /** The agent making the call (overrides are per agent). */
  readonly agent_id: string
  /** Its workspace; overrides without a workspace apply to every workspace. */
  readonly workspace_id?: string | undefined
  /** The tool, matched against the bundle's `tools` domain, e.g. `tool.exec`. */
  readonly tool_id: string
  /** What overrides' patterns are matched against (the command line, the path, …); trimmed. */
  readonly tool_match_target: string
  /** The URL the call reaches, matched against `network_egress` in each of its forms (`egress.ts`: `proto://host[:port]/path`, host normalised). */
  readonly url?: string | undefined
  /** Secret scopes the call needs, each matched against `secrets`; the most restrictive wins. */
  readonly secret_scopes?: ReadonlyArray<string> | undefined
  /** Where the call's input came from; `trusted: false` on `tool.exec` needs approval when the bundle says so. */
  readonly input_provenance?: { readonly source: string; readonly trusted: boolean } | undefined
  /** Evaluate against this stored snapshot instead of the effective bundle (a run's pinned policy). */
  readonly policy_snapshot_id?: string | undefined
}

/** The tool that the provenance rule guards (reference §1.3). */
export const SHELL_TOOL_ID = "tool.exec"

/**
 * A domain's decision for `target` (trimmed): the first deny pattern that
 * matches wins, then require_approval, then allow, else the default.
 */
export const evaluateDomain = (domain: PolicyDomain, target: string): BundleDecision => {
  const t = target.trim()
  if (domain.deny.some((p) => wildcardMatch(p, t))) return "deny"
  if (domain.require_approval.some((p) => wildcardMatch(p, t))) return "require_approval"
  if (domain.allow.some((p) => wildcardMatch(p, t))) return "allow"
  return domain.default
}

/**
 * A URL as egress rules see it, canonically: `protocol//host[:port]/path`
 * with the host normalised (`egress.ts`: lower case, no trailing dot,
 * IPv4-mapped IPv6 as IPv4); credentials, query and fragment dropped, so
 * secrets in them never reach a rule's detail. Text that is not a URL is cut
 * at its first `?` or `#`.
 */
export const normalizeUrlForPolicy = (raw: string): string => egressTargets(raw)[0] ?? ""

/** The bundle's verdict on a call, before overrides. */
export interface BundleVerdict {
  /** tool_policy, then provenance, network_egress, secrets when they apply. */
  readonly rules: ReadonlyArray<ToolRuleDecision>
  /** The tool_policy outcome (what an override may relax). */
  readonly tool: BundleDecision
  /** The most restrictive of the other rules (provenance, egress, secrets): never relaxed by an override. */
  readonly gates: BundleDecision
  readonly decision: BundleDecision
}

/** Evaluates `input` against `bundle` (rules in reference order); overrides are not consulted. */
export const evaluateAgainstBundle = (bundle: MergedPolicyBundle, input: ToolCallInput): BundleVerdict => {
  const rules: Array<ToolRuleDecision> = []
  const tool = evaluateDomain(bundle.tools, input.tool_id)
  rules.push({ rule: "tool_policy", outcome: tool, detail: `tool_id=${input.tool_id}` })
  let gates: BundleDecision = "allow"
  if (
    bundle.provenance.untrusted_shell_requires_approval && input.input_provenance?.trusted === false &&
    input.tool_id.trim() === SHELL_TOOL_ID
  ) {
    gates = "require_approval"
    rules.push({
      rule: "provenance",
      outcome: "require_approval",
      detail: `untrusted_shell_requires_approval=true (source=${input.input_provenance.source})`
    })
  }
  const targets = input.url === undefined ? [] : egressTargets(input.url)
  if (targets.length > 0 && targets[0]!.length > 0) {
    // Every form of the URL (egress.ts): a rule written for 127.0.0.1 also judges localhost and [::ffff:7f00:1].
    const outcome = evaluateEgressTargets(bundle.network_egress, targets)
    gates = mostRestrictive(gates, outcome)
    rules.push({ rule: "network_egress", outcome, detail: targets[0]! })
  }
  const scopes = input.secret_scopes ?? []
  if (scopes.length > 0) {
    const outcome = scopes.reduce<BundleDecision>((acc, s) => mostRestrictive(acc, evaluateDomain(bundle.secrets, s)), "allow")
    gates = mostRestrictive(gates, outcome)
    rules.push({ rule: "secrets", outcome, detail: `scopes=${scopes.length}` })
  }
  return { rules, tool, gates, decision: mostRestrictive(tool, gates) }
}

/**
 * Whether overrides can matter: the tool rule itself asks for approval and
 * nothing denies (reference §1.4: an override never relaxes a deny).
 */
export const isOverridable = (verdict: BundleVerdict): boolean =>
  verdict.tool === "require_approval" && verdict.decision === "require_approval"

/**
 * The final evaluation: when the verdict is overridable and some of
 * `overrides` (the agent's active overrides for this tool and workspace)
 * match the match target, the tool rule's approval is lifted (rule
 * `policy_override`, `applied_overrides=<id,id>`), but the other gates
 * (provenance, egress, secrets) still apply. When it is overridable and no
 * override matched, the match target is suggested as an override if it
 * passes the guardrail (guardrails.ts).
 */
export const applyOverrides = (
  verdict: BundleVerdict,
  input: ToolCallInput,
  overrides: ReadonlyArray<{ readonly policy_override_id: string; readonly pattern: string }>
): Omit<ToolCallEvaluation, "policy_snapshot_id" | "sha256"> => {
  if (!isOverridable(verdict)) {
    return { decision: verdict.decision, rules: verdict.rules, applied_override_ids: [], suggested_overrides: [] }
  }
  const target = input.tool_match_target.trim()
  const applied = overrides.filter((o) => wildcardMatch(o.pattern, target)).map((o) => o.policy_override_id)
  if (applied.length > 0) {
    return {
      decision: mostRestrictive("allow", verdict.gates),
      rules: [...verdict.rules, { rule: "policy_override", outcome: "allow", detail: `applied_overrides=${applied.join(",")}` }],
      applied_override_ids: applied,
      suggested_overrides: []
    }
  }
  const suggested: Array<SuggestedOverride> = isSafeSuggestedOverridePattern(target)
    ? [{ tool_id: input.tool_id, pattern: target, ...(input.workspace_id !== undefined ? { workspace_id: input.workspace_id } : {}) }]
    : []
  return { decision: verdict.decision, rules: verdict.rules, applied_override_ids: [], suggested_overrides: suggested }
}
