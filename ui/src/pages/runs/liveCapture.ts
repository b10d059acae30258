/**
 * What the live connection hands out once and the HTTP API cannot give back,
 * kept in this page load's memory:
 *
 * - the resume token of each paused run (`run.paused`, only to principals
 *   holding `operator.write`; the gateway stores only its digest), dropped when
 *   the run resumes or ends (`run.resumed`, `run.completed`, `run.failed`,
 *   `run.cancelled`). Never shown, logged or stored: it is sent once to
 *   `POST /workflow/resume`.
 * - the evidence nodes report while they execute an attempt
 *   (`attempt.evidence {node_id, run_id, step_id, attempt_id, evidence}`),
 *   which the run's record does not keep: the newest 200 attempts' reports.
 *
 * Capture starts when this module is first imported (the runs and playbooks
 * pages import it), so a pause or evidence sent before is not known here: a
 * run paused before then is resumed through its approval instead
 * (RunActions.tsx).
 */
import { useEffect, useState } from "preact/hooks"
import { onEvent } from "../../app/live.ts"
import type { AttemptEvidence, RunPaused } from "./types.ts"

/** A paused run's token and the approval it waits for. */
interface Pause {
  readonly token: string
  readonly approvalId: number
}

/** One evidence report as received. */
export interface EvidenceReport {
  readonly nodeId: string
  readonly evidence: unknown
  /** When the event occurred (ISO 8601, the envelope's `occurred_at`). */
  readonly at: string
}

/** Most attempts whose evidence is kept. */
const MAX_ATTEMPTS_KEPT = 200

const pauses = new Map<string, Pause>()
const evidence = new Map<string, Array<EvidenceReport>>()
const listeners = new Set<() => void>()
const ENDS = new Set(["run.resumed", "run.completed", "run.failed", "run.cancelled"])

const changed = () => {
  for (const listener of listeners) listener()
}

onEvent((event) => {
  if (event.type === "run.paused") {
    const paused = event.payload as RunPaused
    if (paused.resume_token !== undefined) {
      pauses.set(paused.run_id, { token: paused.resume_token, approvalId: paused.approval_id })
      changed()
    }
  } else if (ENDS.has(event.type)) {
    if (pauses.delete((event.payload as { run_id: string }).run_id)) changed()
  } else if (event.type === "attempt.evidence") {
    const report = event.payload as AttemptEvidence
    const list = evidence.get(report.attempt_id) ?? []
    evidence.delete(report.attempt_id)
    evidence.set(report.attempt_id, [...list, { nodeId: report.node_id, evidence: report.evidence, at: event.occurred_at }])
    if (evidence.size > MAX_ATTEMPTS_KEPT) evidence.delete(evidence.keys().next().value!)
    changed()
  }
})

/** The resume token this console received for `runId`'s current pause, if any (send it, never show it). */
export const resumeTokenOf = (runId: string): string | undefined => pauses.get(runId)?.token

/** Forgets `runId`'s token (after it was used: a token works once). */
export const forgetResumeToken = (runId: string): void => {
  if (pauses.delete(runId)) changed()
}

/** Re-renders on every capture; answers a version number to key memoised views. */
export const useLiveCapture = (): number => {
  const [version, setVersion] = useState(0)
  useEffect(() => {
    const listener = () => setVersion((v) => v + 1)
    listeners.add(listener)
    return () => void listeners.delete(listener)
  }, [])
  return version
}

/** The evidence reports received for an attempt, oldest first. */
export const evidenceOf = (attemptId: string): ReadonlyArray<EvidenceReport> => evidence.get(attemptId) ?? []
