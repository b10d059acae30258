/**
 * Artifact retention (issue 24 §4; docs/artifacts.md "Retention"): how long
 * an artifact's bytes are kept, from the effective policy bundle's
 * `artifacts` domain, the most specific rule first
 * ({@link retentionDaysFor}): `retention.by_label_sensitivity.<label>.<s>`,
 * then `retention.by_label.<label>` (with several labels the shortest of
 * the matching rules), then `retention.by_sensitivity.<s>`, then
 * `retention_days` (else `retention.default_days`). A recurring job
 * (retentionJob.ts: {@link RETENTION_JOB}, every {@link SWEEP_INTERVAL},
 * one instance where a cluster runs) deletes the bytes of expired artifacts
 * and sets their row's `deleted_at`; the metadata stays (the run-scoped
 * bytes route then answers 404). No rule covering an artifact: it is kept.
 * Then, when the bytes not deleted total more than `max_total_bytes`, the
 * sweep deletes the oldest until they do not.
 *
 * @module
 */
import { Duration } from "effect"
import type { MergedPolicyBundle } from "../policy-bundle/schema.ts"
import type { ArtifactSensitivity } from "./schema.ts"

/** The job's name. */
export const RETENTION_JOB = "artifacts.retention"

/** How often the sweep runs. */
export const SWEEP_INTERVAL = Duration.hours(1)

/** Most artifacts one sweep batch handles (a sweep repeats batches until none is left). */
export const SWEEP_BATCH = 500

const DAY_MS = 24 * 60 * 60 * 1000

/** The retention in days of `artifacts` (its `retention_days`, else `retention.default_days`), or `undefined`: keep forever. */
export const retentionDays = (artifacts: MergedPolicyBundle["artifacts"]): number | undefined =>
  artifacts.retention_days ?? artifacts.retention?.default_days

/**
 * The retention in days of an artifact with `labels` and `sensitivity`
 * (the most specific rule, see the module documentation), or `undefined`:
 * keep it.
 */
export const retentionDaysFor = (
  artifacts: MergedPolicyBundle["artifacts"],
  labels: ReadonlyArray<string>,
  sensitivity: ArtifactSensitivity
): number | undefined => {
  const rules = artifacts.retention
  const shortest = (days: ReadonlyArray<number | undefined>) => {
    const found = days.filter((d): d is number => d !== undefined)
    return found.length === 0 ? undefined : Math.min(...found)
  }
  const own = <V>(record: Readonly<Record<string, V>> | undefined, key: string): V | undefined =>
    record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined
  return shortest(labels.map((label) => own(rules?.by_label_sensitivity, label)?.[sensitivity])) ??
    shortest(labels.map((label) => own(rules?.by_label, label))) ??
    rules?.by_sensitivity?.[sensitivity] ??
    retentionDays(artifacts)
}

/** The shortest retention any rule gives (no artifact expires sooner), or `undefined` when there is no rule. */
export const shortestRetentionDays = (artifacts: MergedPolicyBundle["artifacts"]): number | undefined => {
  const rules = artifacts.retention
  const days = [
    artifacts.retention_days,
    rules?.default_days,
    ...Object.values(rules?.by_label ?? {}),
    rules?.by_sensitivity?.normal,
    rules?.by_sensitivity?.sensitive,
    ...Object.values(rules?.by_label_sensitivity ?? {}).flatMap((s) => [s.normal, s.sensitive])
  ].filter((d): d is number => d !== undefined)
  return days.length === 0 ? undefined : Math.min(...days)
}

/** The creation time before which bytes are deleted at `nowMs` under `days` of retention (ISO-8601 UTC). */
export const retentionCutoff = (nowMs: number, days: number): string => new Date(nowMs - days * DAY_MS).toISOString()
