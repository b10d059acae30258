/**
 * Policy bundles as data (reference §1.3): the built-in default, the strict
 * decoder for bundle files, and the most-restrictive merge of several
 * bundles into the effective one. Pure functions; loading files is
 * loader.ts's job.
 *
 * @module
 */
import { Result, type SchemaAST, SchemaParser } from "effect"
import { formatIssue } from "../shared/decode.ts"
import {
  type ArtifactQuota,
  type ArtifactRetention,
  type BundleDecision,
  type MergedPolicyBundle,
  PolicyBundleV1,
  type PolicyDomain,
  type SensitivityNumbers
} from "./schema.ts"

/** The more restrictive of two decisions: deny > require_approval > allow. */
export const mostRestrictive = (a: BundleDecision, b: BundleDecision): BundleDecision =>
  a === "deny" || b === "deny" ? "deny" : a === "require_approval" || b === "require_approval" ? "require_approval" : "allow"

/**
 * The built-in bundle, used as the deployment bundle when
 * `SVC_POLICY_BUNDLE_PATH` is unset (reference §1.3): tools need approval
 * except `tool.fs.read`; egress and secrets need approval; connectors need
 * approval except `telegram:*`; artifacts are allowed; untrusted shell input
 * needs approval.
 */
export const DEFAULT_POLICY_BUNDLE: PolicyBundleV1 = {
  v: 1,
  tools: { default: "require_approval", allow: ["tool.fs.read"], require_approval: [], deny: [] },
  network_egress: { default: "require_approval", allow: [], require_approval: [], deny: [] },
  secrets: { default: "require_approval", allow: [], require_approval: [], deny: [] },
  connectors: { default: "require_approval", allow: ["telegram:*"], require_approval: [], deny: [] },
  artifacts: { default: "allow" },
  provenance: { untrusted_shell_requires_approval: true }
}

const STRICT: SchemaAST.ParseOptions = { errors: "first", onExcessProperty: "error", reportInput: true }
const parseStrict = SchemaParser.decodeUnknownResult(PolicyBundleV1, STRICT)

/**
 * Decodes a bundle file's parsed content strictly: unknown keys are errors.
 * A failure is one line naming the field, e.g. `tools.alow: unexpected field`
 * or `v: expected 1, got 2`.
 */
export const decodePolicyBundle = (input: unknown): Result.Result<PolicyBundleV1, string> => {
  const result = parseStrict(input)
  return Result.isSuccess(result) ? Result.succeed(result.success) : Result.fail(formatIssue(result.failure, "bundle"))
}

type DomainKey = "tools" | "network_egress" | "secrets" | "connectors"

/** Unions of lists keep first-seen order and drop duplicates. */
const union = (lists: ReadonlyArray<ReadonlyArray<string>>): Array<string> => [...new Set(lists.flat())]

/** A domain's default starts at require_approval, so a merged default is never `allow` (reference §1.3). */
const mergeDomain = (domains: ReadonlyArray<PolicyDomain>): PolicyDomain => ({
  default: domains.reduce<BundleDecision>((acc, d) => mostRestrictive(acc, d.default), "require_approval"),
  allow: union(domains.map((d) => d.allow)),
  require_approval: union(domains.map((d) => d.require_approval)),
  deny: union(domains.map((d) => d.deny))
})

const minOf = (values: ReadonlyArray<number | undefined>): number | undefined => {
  const present = values.filter((v): v is number => v !== undefined)
  return present.length === 0 ? undefined : Math.min(...present)
}

const definedOnly = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T

const mergeSensitivity = (maps: ReadonlyArray<SensitivityNumbers | undefined>): SensitivityNumbers | undefined => {
  const present = maps.filter((m): m is SensitivityNumbers => m !== undefined)
  if (present.length === 0) return undefined
  return definedOnly({ normal: minOf(present.map((m) => m.normal)), sensitive: minOf(present.map((m) => m.sensitive)) })
}

const mergeByKey = <V>(
  maps: ReadonlyArray<Readonly<Record<string, V>> | undefined>,
  merge: (values: ReadonlyArray<V>) => V | undefined
): Record<string, V> | undefined => {
  const present = maps.filter((m): m is Readonly<Record<string, V>> => m !== undefined)
  if (present.length === 0) return undefined
  const keys = [...new Set(present.flatMap((m) => Object.keys(m)))].sort()
  const out: Record<string, V> = {}
  for (const key of keys) {
    const merged = merge(present.flatMap((m) => (Object.hasOwn(m, key) ? [m[key]] : [])))
    if (merged !== undefined) out[key] = merged
  }
  return out
}

/** Retention and quota rules: every number is the minimum of the sources that set it. */
const mergeLimits = <T extends ArtifactRetention | ArtifactQuota>(
  rules: ReadonlyArray<T | undefined>,
  defaultKey: "default_days" | "default_max_bytes"
): T | undefined => {
  const present = rules.filter((r): r is T => r !== undefined)
  if (present.length === 0) return undefined
  return definedOnly({
    [defaultKey]: minOf(present.map((r) => (r as Record<string, number | undefined>)[defaultKey])),
    by_label: mergeByKey(present.map((r) => r.by_label), (values) => minOf(values)),
    by_sensitivity: mergeSensitivity(present.map((r) => r.by_sensitivity)),
    by_label_sensitivity: mergeByKey(present.map((r) => r.by_label_sensitivity), mergeSensitivity)
  }) as unknown as T
}

/**
 * Merges bundles, most restrictive first (reference §1.3): each domain's
 * default is the most restrictive of the defaults given, starting from
 * `require_approval`; the allow, require_approval and deny lists are unions;
 * `artifacts.default` is the most restrictive (starting from `allow`) and
 * every retention and quota number the minimum; the provenance flag is true
 * when any bundle that sets it says true (true when none does). The result
 * contains every domain. `undefined` entries (absent sources) are skipped.
 */
export const mergePolicyBundles = (bundles: ReadonlyArray<PolicyBundleV1 | undefined>): MergedPolicyBundle => {
  const present = bundles.filter((b): b is PolicyBundleV1 => b !== undefined)
  const domain = (key: DomainKey) => mergeDomain(present.flatMap((b) => (b[key] === undefined ? [] : [b[key]])))
  const artifacts = present.flatMap((b) => (b.artifacts === undefined ? [] : [b.artifacts]))
  const provenance = present.flatMap((b) => (b.provenance === undefined ? [] : [b.provenance]))
  return {
    v: 1,
    tools: domain("tools"),
    network_egress: domain("network_egress"),
    secrets: domain("secrets"),
    connectors: domain("connectors"),
    artifacts: definedOnly({
      default: artifacts.reduce<BundleDecision>((acc, a) => mostRestrictive(acc, a.default), "allow"),
      retention_days: minOf(artifacts.map((a) => a.retention_days)),
      max_bytes: minOf(artifacts.map((a) => a.max_bytes)),
      max_total_bytes: minOf(artifacts.map((a) => a.max_total_bytes)),
      retention: mergeLimits(artifacts.map((a) => a.retention), "default_days"),
      quota: mergeLimits(artifacts.map((a) => a.quota), "default_max_bytes")
    }),
    provenance: {
      untrusted_shell_requires_approval: provenance.length === 0 || provenance.some((p) => p.untrusted_shell_requires_approval)
    }
  }
}
