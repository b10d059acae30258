/**
 * Artifact retention (issue 24 §4; docs/artifacts.md "Retention"): the
 * effective policy bundle's `artifacts.retention_days` (else
 * `artifacts.retention.default_days`) is how long an artifact's bytes are
 * kept. A recurring job (retentionJob.ts: {@link RETENTION_JOB}, every
 * {@link SWEEP_INTERVAL}, one instance where a cluster runs) deletes the
 * bytes of older artifacts and sets their row's `deleted_at`; the metadata
 * stays (the run-scoped bytes route then answers 404). No retention
 * configured: nothing is deleted.
 *
 * @module
 */
import { Duration } from "effect"
import type { MergedPolicyBundle } from "../policy-bundle/schema.ts"

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

/** The creation time before which bytes are deleted at `nowMs` under `days` of retention (ISO-8601 UTC). */
export const retentionCutoff = (nowMs: number, days: number): string => new Date(nowMs - days * DAY_MS).toISOString()
