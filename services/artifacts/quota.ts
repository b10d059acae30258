/**
 * Artifact quotas (issue 24 §4; docs/artifacts.md "Quotas"), from the
 * effective policy bundle's `artifacts` domain, enforced by `Artifacts.put`:
 *
 * - `max_bytes`: the largest one artifact may be;
 * - `quota`: caps on the total bytes stored and not deleted of the
 *   artifacts a rule covers: `default_max_bytes` all artifacts,
 *   `by_label.<label>` those carrying the label, `by_sensitivity.<s>` those
 *   of sensitivity `s`, `by_label_sensitivity.<label>.<s>` both. Every rule
 *   covering the new artifact must hold with it counted;
 * - `max_total_bytes` is not checked here: it is the retention sweep's
 *   overall cap (retention.ts), which deletes the oldest bytes above it.
 *
 * @module
 */
import type { MergedPolicyBundle } from "../policy-bundle/schema.ts"
import type { ArtifactPool } from "./ArtifactsRepo.ts"
import type { ArtifactSensitivity } from "./schema.ts"

/** One quota rule covering an artifact: its name (as in `ArtifactQuotaExceeded.details.rule`), its limit and its pool. */
export interface QuotaRule {
  readonly rule: string
  readonly limit_bytes: number
  readonly pool: ArtifactPool
}

/** The rules of `artifacts.quota` covering an artifact with `labels` and `sensitivity`, broadest first. */
export const quotaRules = (
  artifacts: MergedPolicyBundle["artifacts"],
  labels: ReadonlyArray<string>,
  sensitivity: ArtifactSensitivity
): ReadonlyArray<QuotaRule> => {
  const quota = artifacts.quota
  if (quota === undefined) return []
  const rules: Array<QuotaRule> = []
  if (quota.default_max_bytes !== undefined) rules.push({ rule: "quota.default_max_bytes", limit_bytes: quota.default_max_bytes, pool: {} })
  const bySensitivity = quota.by_sensitivity?.[sensitivity]
  if (bySensitivity !== undefined) {
    rules.push({ rule: `quota.by_sensitivity.${sensitivity}`, limit_bytes: bySensitivity, pool: { sensitivity } })
  }
  for (const label of new Set(labels)) {
    const byLabel = Object.hasOwn(quota.by_label ?? {}, label) ? quota.by_label![label] : undefined
    if (byLabel !== undefined) rules.push({ rule: `quota.by_label.${label}`, limit_bytes: byLabel, pool: { label } })
    const both = Object.hasOwn(quota.by_label_sensitivity ?? {}, label) ? quota.by_label_sensitivity![label]?.[sensitivity] : undefined
    if (both !== undefined) {
      rules.push({ rule: `quota.by_label_sensitivity.${label}.${sensitivity}`, limit_bytes: both, pool: { label, sensitivity } })
    }
  }
  return rules
}
