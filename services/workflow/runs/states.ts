/**
 * The state machines of a workflow's job, run, step and attempt (reference
 * §6.5; docs/workflow-runs.md "State machines"), as data. Every status change
 * the repository writes (`RunsRepo.transition`) must be an edge of these
 * tables; the conditional write (`… WHERE status IN (from)`) makes the
 * database decide which of two racing writers wins.
 *
 * @module
 */

/** Job statuses (reference §6.5). */
export const JOB_STATUSES = ["queued", "running", "completed", "failed", "cancelled"] as const
export type JobStatus = typeof JOB_STATUSES[number]

/** Run statuses (reference §6.5). */
export const RUN_STATUSES = ["queued", "running", "paused", "succeeded", "failed", "cancelled"] as const
export type RunStatus = typeof RUN_STATUSES[number]

/** Step statuses (reference §6.5). */
export const STEP_STATUSES = ["queued", "running", "paused", "succeeded", "failed", "cancelled", "skipped"] as const
export type StepStatus = typeof STEP_STATUSES[number]

/** Attempt statuses (reference §6.5). */
export const ATTEMPT_STATUSES = ["running", "succeeded", "failed", "timed_out", "cancelled"] as const
export type AttemptStatus = typeof ATTEMPT_STATUSES[number]

/** The four machines. */
export type MachineKind = "job" | "run" | "step" | "attempt"

/** The status type of each machine. */
export interface StatusOf {
  readonly job: JobStatus
  readonly run: RunStatus
  readonly step: StepStatus
  readonly attempt: AttemptStatus
}

/** Every status of each machine. */
export const STATUSES: { readonly [K in MachineKind]: ReadonlyArray<StatusOf[K]> } = {
  job: JOB_STATUSES,
  run: RUN_STATUSES,
  step: STEP_STATUSES,
  attempt: ATTEMPT_STATUSES
}

type Table<S extends string> = { readonly [F in S]: ReadonlyArray<S> }

/**
 * The allowed edges, `from → [to…]`. A status with no edge out is terminal.
 *
 * - job: queued → running | cancelled; running → completed | failed | cancelled.
 * - run: queued → running | cancelled; running → paused | succeeded | failed |
 *   cancelled; paused → running (resumed: a paused run keeps its lane, so it
 *   continues at once) | queued (reserved: re-queued behind its lane) |
 *   failed (a denied retry, an expired approval) | cancelled (cancel, or a
 *   denied policy/budget approval).
 * - step: queued → running | paused (the policy or budget gate paused before
 *   an attempt) | succeeded (its idempotency key already succeeded in this
 *   run: no attempt) | failed (policy denied) | skipped | cancelled;
 *   running → succeeded | failed | paused (a non-idempotent retry needs an
 *   approval) | queued (retry) | cancelled; paused → queued (resumed) |
 *   failed | cancelled.
 * - attempt: running → succeeded | failed | timed_out | cancelled.
 */
export const TRANSITIONS: { readonly [K in MachineKind]: Table<StatusOf[K]> } = {
  job: {
    queued: ["running", "cancelled"],
    running: ["completed", "failed", "cancelled"],
    completed: [],
    failed: [],
    cancelled: []
  },
  run: {
    queued: ["running", "cancelled"],
    running: ["paused", "succeeded", "failed", "cancelled"],
    paused: ["queued", "running", "failed", "cancelled"],
    succeeded: [],
    failed: [],
    cancelled: []
  },
  step: {
    queued: ["running", "paused", "succeeded", "failed", "skipped", "cancelled"],
    running: ["succeeded", "failed", "paused", "queued", "cancelled"],
    paused: ["queued", "failed", "cancelled"],
    succeeded: [],
    failed: [],
    cancelled: [],
    skipped: []
  },
  attempt: {
    running: ["succeeded", "failed", "timed_out", "cancelled"],
    succeeded: [],
    failed: [],
    timed_out: [],
    cancelled: []
  }
}

/** True when `from → to` is an edge of machine `kind` (unknown statuses: false). */
export const canTransition = <K extends MachineKind>(kind: K, from: string, to: string): boolean => {
  const table = TRANSITIONS[kind] as Readonly<Record<string, ReadonlyArray<string> | undefined>>
  return Object.hasOwn(table, from) && (table[from] ?? []).includes(to)
}

/** True when `status` has no edge out in machine `kind`. */
export const isTerminal = <K extends MachineKind>(kind: K, status: StatusOf[K]): boolean =>
  (TRANSITIONS[kind] as Readonly<Record<string, ReadonlyArray<string>>>)[status]!.length === 0

/** The terminal statuses of machine `kind`. */
export const terminalStatuses = <K extends MachineKind>(kind: K): ReadonlyArray<StatusOf[K]> =>
  STATUSES[kind].filter((s) => isTerminal(kind, s))
