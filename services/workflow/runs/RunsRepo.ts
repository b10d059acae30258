/**
 * Persistence of workflow jobs, runs, steps, attempts and resume tokens
 * (tables in services/workflow/runs/migrations; docs/workflow-runs.md).
 *
 * Every status change is ONE conditional write (`UPDATE … WHERE id = … AND
 * status IN (from…) RETURNING *`) whose edges must be allowed by
 * services/workflow/runs/states.ts, so of two racing writers exactly one gets
 * the row back: the database decides. A partial unique index keeps at most
 * one running or paused run per (key, lane); a write that would break it
 * loses like a lost race (`undefined`). Rows are decoded with `Schema` the
 * same on SQLite and PostgreSQL; a row that does not decode is a defect.
 *
 * @module
 */
import { randomUUID } from "node:crypto"
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { migrate } from "../../../layers/storage/migrations.ts"
import { runCursor } from "./cursor.ts"
import type { Lane } from "./keys.ts"
import { workflowRunsMigrations } from "./migrations/index.ts"
import {
  AttemptCost,
  AttemptError,
  DEFAULT_RUN_PAGE,
  ExecutionAttempt,
  ExecutionJob,
  ExecutionRun,
  ExecutionStep,
  type ExecutionStepDetail,
  PauseReason,
  RunStatus,
  TriggerKind,
  WorkflowBudgets,
  type WorkflowRunDetail,
  type WorkflowRunListResponse,
  WorkflowStep
} from "./schema.ts"
import { canTransition, type MachineKind, type StatusOf } from "./states.ts"
import { serialColumn, TimestampColumn } from "../../../layers/storage/columns.ts"
import { findRows } from "../../../layers/storage/rows.ts"
import { repositoryEdge, transactionAtEdge } from "../../../layers/storage/repositoryEdge.ts"

// ---------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------

const Json = Schema.fromJsonString(Schema.Unknown)
const NullableJson = Schema.NullOr(Json)

/** A stored job: the {@link ExecutionJob} fields; `trigger` is JSON text. */
export const JobRow = ExecutionJob.mapFields((fields) => ({
  ...fields,
  trigger: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)),
  created_at: TimestampColumn,
  updated_at: TimestampColumn
})).annotate({ identifier: "JobRow" })

/**
 * A stored run: the {@link ExecutionRun} fields, plus `seq` (its arrival
 * order) and `updated_at`; optional fields are NULL columns, budgets JSON text.
 * Fields in the table's column order (a snapshot's column order).
 */
export const RunRow = ExecutionRun.mapFields((run) => ({
  seq: serialColumn(Schema.Int),
  run_id: run.run_id,
  job_id: run.job_id,
  key: run.key,
  lane: run.lane,
  status: run.status,
  attempt: run.attempt,
  plan_id: run.plan_id,
  request_id: run.request_id,
  steps_count: run.steps_count,
  created_at: TimestampColumn,
  updated_at: TimestampColumn,
  started_at: Schema.NullOr(TimestampColumn),
  finished_at: Schema.NullOr(TimestampColumn),
  paused_reason: Schema.NullOr(PauseReason),
  paused_detail: Schema.NullOr(Schema.String),
  policy_snapshot_id: Schema.NullOr(Schema.String),
  budgets: Schema.NullOr(Schema.fromJsonString(WorkflowBudgets)),
  budget_overridden_at: Schema.NullOr(TimestampColumn)
})).annotate({ identifier: "RunRow" })
export type RunRow = typeof RunRow.Type

/** A stored step: the {@link ExecutionStep} fields; `action` is the step's JSON. */
export const StepRow = ExecutionStep.mapFields((fields) => ({
  ...fields,
  action: Schema.fromJsonString(WorkflowStep),
  created_at: TimestampColumn,
  updated_at: TimestampColumn
})).annotate({ identifier: "StepRow" })

/** A stored attempt: the {@link ExecutionAttempt} fields; the free-form ones are JSON text. */
export const AttemptRow = ExecutionAttempt.mapFields((fields) => ({
  ...fields,
  started_at: TimestampColumn,
  finished_at: Schema.NullOr(TimestampColumn),
  result: NullableJson,
  error: Schema.NullOr(Schema.fromJsonString(AttemptError)),
  postcondition_report: NullableJson,
  artifacts: Schema.fromJsonString(Schema.Array(Schema.Unknown)),
  cost: Schema.NullOr(Schema.fromJsonString(AttemptCost)),
  policy_decision: NullableJson,
  policy_applied_override_ids: Schema.fromJsonString(Schema.Array(Schema.String))
})).annotate({ identifier: "AttemptRow" })

/** A stored resume token: only its digest, never the token. */
export const ResumeTokenRow = Schema.Struct({
  digest: Schema.String,
  run_id: Schema.String,
  step_index: Schema.Int,
  approval_id: Schema.NullOr(Schema.Int),
  created_at: TimestampColumn,
  expires_at: Schema.NullOr(TimestampColumn),
  used_at: Schema.NullOr(TimestampColumn),
  revoked_at: Schema.NullOr(TimestampColumn),
  /** The pause it continues (`pauseName`; migration 2 filled it in for older rows). */
  pause_name: Schema.String
})
export type ResumeToken = typeof ResumeTokenRow.Type

/** The wire record of a run row: optional fields only when set. */
export const toRun = (row: RunRow): ExecutionRun => ({
  run_id: row.run_id,
  job_id: row.job_id,
  key: row.key,
  lane: row.lane,
  status: row.status,
  attempt: row.attempt,
  plan_id: row.plan_id,
  request_id: row.request_id,
  steps_count: row.steps_count,
  created_at: row.created_at,
  started_at: row.started_at,
  finished_at: row.finished_at,
  ...(row.paused_reason !== null ? { paused_reason: row.paused_reason } : {}),
  ...(row.paused_detail !== null ? { paused_detail: row.paused_detail } : {}),
  ...(row.policy_snapshot_id !== null ? { policy_snapshot_id: row.policy_snapshot_id } : {}),
  ...(row.budgets !== null ? { budgets: row.budgets } : {}),
  ...(row.budget_overridden_at !== null ? { budget_overridden_at: row.budget_overridden_at } : {})
})

// ---------------------------------------------------------------------------
// Writes
// ---------------------------------------------------------------------------

/** A run to enqueue: its job, the run (queued, attempt 1) and its steps (queued, index 0..n-1, ids `<run_id>:<index>`). */
export interface NewRun {
  readonly job_id: string
  readonly run_id: string
  readonly key: string
  readonly lane: Lane
  readonly plan_id: string
  readonly request_id: string
  readonly steps: ReadonlyArray<WorkflowStep>
  readonly budgets?: WorkflowBudgets | undefined
  readonly policy_snapshot_id?: string | undefined
  /** Default `api`. */
  readonly trigger_kind?: TriggerKind | undefined
  /** Extra trigger metadata; `plan_id` and `request_id` are always merged in. */
  readonly trigger?: Readonly<Record<string, unknown>> | undefined
  /** Now (ISO). */
  readonly created_at: string
}

/** What `createRun` wrote. */
export interface CreatedRun {
  readonly job: ExecutionJob
  readonly run: ExecutionRun
  readonly steps: ReadonlyArray<ExecutionStep>
}

/** Columns a job transition may also set. */
export interface JobPatch {
  readonly latest_run_id?: string | undefined
}

/**
 * Columns a run transition may also set. Entering `running` sets
 * `started_at` (first time only); entering a terminal status sets
 * `finished_at`; leaving `paused` clears `paused_reason`/`paused_detail`
 * unless given.
 */
export interface RunPatch {
  readonly paused_reason?: PauseReason | null | undefined
  readonly paused_detail?: string | null | undefined
  readonly budget_overridden_at?: string | undefined
  readonly policy_snapshot_id?: string | undefined
}

/** Columns a step transition may also set. */
export interface StepPatch {
  readonly approval_id?: number | null | undefined
}

/** Columns an attempt transition may also set; entering a terminal status sets `finished_at`. */
export interface AttemptPatch {
  readonly result?: unknown
  readonly error?: AttemptError | null | undefined
  readonly postcondition_report?: unknown
  readonly artifacts?: ReadonlyArray<unknown> | undefined
  readonly cost?: AttemptCost | null | undefined
  readonly policy_decision?: unknown
  readonly policy_applied_override_ids?: ReadonlyArray<string> | undefined
}

/** The extra columns of each machine's transition, and the time of the write. */
export type TransitionWrite<K extends MachineKind> =
  & { readonly at: string }
  & { readonly job: JobPatch; readonly run: RunPatch; readonly step: StepPatch; readonly attempt: AttemptPatch }[K]

/** The record each machine's transition returns. */
export interface RecordOf {
  readonly job: ExecutionJob
  readonly run: ExecutionRun
  readonly step: ExecutionStep
  readonly attempt: ExecutionAttempt
}

/** An attempt to start (status `running`). */
export interface NewAttempt {
  readonly attempt_id?: string | undefined
  readonly step_id: string
  readonly run_id: string
  /** 1-based; unique per step. */
  readonly attempt: number
  readonly started_at: string
  readonly policy_decision?: unknown
  readonly policy_applied_override_ids?: ReadonlyArray<string> | undefined
}

/** A resume token to store (its digest; the token itself is never stored). */
export interface NewResumeToken {
  readonly digest: string
  readonly run_id: string
  readonly step_index: number
  readonly approval_id: number | null
  /** The pause it continues (`pauseName`: `confirm/2`, `policy/0`, …). */
  readonly pause_name: string
  readonly created_at: string
  readonly expires_at: string | null
}

/** What a run has used so far: the sums of its attempts' costs. */
export interface RunSpending {
  readonly usd_micros: number
  readonly total_tokens: number
  readonly input_tokens: number
  readonly output_tokens: number
  readonly duration_ms: number
  readonly attempts: number
}

/** Filters and page of `listRuns`. */
export interface RunListQuery {
  readonly status?: RunStatus | undefined
  readonly key?: string | undefined
  /** Default 100. */
  readonly limit?: number | undefined
  /** The previous page's `next_cursor`. */
  readonly cursor?: string | undefined
}

/** A listing cursor this gateway did not issue. */
export class InvalidRunCursor extends Schema.TaggedError<InvalidRunCursor>()("InvalidRunCursor", {
  message: Schema.String
}) {}

const TERMINAL_RUN: ReadonlyArray<string> = ["succeeded", "failed", "cancelled"]
const TERMINAL_ATTEMPT: ReadonlyArray<string> = ["succeeded", "failed", "timed_out", "cancelled"]

const TABLE: { readonly [K in MachineKind]: readonly [table: string, id: string] } = {
  job: ["workflow_jobs", "job_id"],
  run: ["workflow_runs", "run_id"],
  step: ["workflow_steps", "step_id"],
  attempt: ["workflow_attempts", "attempt_id"]
}

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value))

/** The column values of a transition (status included). */
const columnsOf = (kind: MachineKind, to: string, write: Record<string, unknown>): Record<string, unknown> => {
  const set: Record<string, unknown> = { status: to }
  const copy = (name: string, encode: (v: unknown) => unknown = (v) => v) => {
    if (write[name] !== undefined) set[name] = encode(write[name])
  }
  const at = write.at as string
  switch (kind) {
    case "job":
      set.updated_at = at
      copy("latest_run_id")
      break
    case "run":
      set.updated_at = at
      if (TERMINAL_RUN.includes(to)) set.finished_at = at
      if (to !== "paused") {
        set.paused_reason = null
        set.paused_detail = null
      }
      copy("paused_reason")
      copy("paused_detail")
      copy("budget_overridden_at")
      copy("policy_snapshot_id")
      break
    case "step":
      set.updated_at = at
      copy("approval_id")
      break
    case "attempt":
      if (TERMINAL_ATTEMPT.includes(to)) set.finished_at = at
      for (const name of ["result", "error", "postcondition_report", "cost", "policy_decision"]) copy(name, json)
      copy("artifacts", JSON.stringify)
      copy("policy_applied_override_ids", JSON.stringify)
      break
  }
  return set
}

// ---------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------

/** Repository of workflow jobs, runs, steps, attempts and resume tokens over `SqlClient`. */
export class RunsRepo extends Context.Service<RunsRepo, {
  /** Writes the job, the run and its steps, all queued, in one transaction. */
  readonly createRun: (run: NewRun) => Effect.Effect<CreatedRun>
  /**
   * Moves `id` of machine `kind` from one of `from` to `to` in ONE
   * conditional write, setting the columns of `write`; the new record, or
   * `undefined` when the row is unknown, was in no status of `from`, or (a
   * run entering running or paused) another run holds its lane. A `from → to`
   * that states.ts does not allow is a defect.
   */
  readonly transition: <K extends MachineKind>(
    kind: K,
    id: string,
    from: ReadonlyArray<StatusOf[K]>,
    to: StatusOf[K],
    write: TransitionWrite<K>
  ) => Effect.Effect<RecordOf[K] | undefined>
  /** Starts an attempt (status running); fails with a unique violation if that attempt number exists. */
  readonly startAttempt: (attempt: NewAttempt) => Effect.Effect<ExecutionAttempt>
  /**
   * The run of (key, lane) that may start next: the earliest-arrived queued
   * run, or `undefined` when none is queued or a running or paused run holds
   * the lane.
   */
  readonly nextQueuedInLane: (key: string, lane: Lane) => Effect.Effect<ExecutionRun | undefined>
  /** The running or paused run that holds (key, lane), if any. */
  readonly laneHolder: (key: string, lane: Lane) => Effect.Effect<ExecutionRun | undefined>
  /** Runs that are not finished (queued, running, paused), in arrival order. */
  readonly unfinishedRuns: Effect.Effect<ReadonlyArray<ExecutionRun>>
  /** One page of runs, newest first, with `next_cursor` when more follow. */
  readonly listRuns: (query: RunListQuery) => Effect.Effect<WorkflowRunListResponse, InvalidRunCursor>
  /** The run with its steps (by index) and their attempts (oldest first), or `undefined`. */
  readonly getRun: (runId: string) => Effect.Effect<WorkflowRunDetail | undefined>
  /** The run record alone (no steps), or `undefined`: one statement. */
  readonly getRunRecord: (runId: string) => Effect.Effect<ExecutionRun | undefined>
  /** The step, or `undefined`: one statement. */
  readonly getStep: (stepId: string) => Effect.Effect<ExecutionStep | undefined>
  /** The job, or `undefined`. */
  readonly getJob: (jobId: string) => Effect.Effect<ExecutionJob | undefined>
  /** The attempt, or `undefined`. */
  readonly getAttempt: (attemptId: string) => Effect.Effect<ExecutionAttempt | undefined>
  /** The sums of the costs of the run's attempts. */
  readonly spending: (runId: string) => Effect.Effect<RunSpending>
  /** The newest token of an approval (used, revoked or not), or `undefined`. */
  readonly tokenOfApproval: (approvalId: number) => Effect.Effect<ResumeToken | undefined>
  /** Stores a resume token's digest. */
  readonly issueToken: (token: NewResumeToken) => Effect.Effect<ResumeToken>
  /**
   * Uses the token with `digest` if it is unused, unrevoked and not expired at
   * `at` (ONE conditional write): the token, or `undefined`. A token is used at most once.
   */
  readonly consumeToken: (digest: string, at: string) => Effect.Effect<ResumeToken | undefined>
  /** Revokes the run's live tokens; returns them. */
  readonly revokeTokensForRun: (runId: string, at: string) => Effect.Effect<ReadonlyArray<ResumeToken>>
  /** Revokes the live tokens of an approval (resolved by an operator); returns them. */
  readonly revokeTokensForApproval: (approvalId: number, at: string) => Effect.Effect<ReadonlyArray<ResumeToken>>
  /** Runs `effect` in one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/workflow/RunsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the workflow_runs migrations first. */
  static readonly layer = Layer.effect(
    RunsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("workflow_runs", workflowRunsMigrations)

      const jobs = findRows(JobRow)
      const runs = findRows(RunRow)
      const steps = findRows(StepRow)
      const attempts = findRows(AttemptRow)
      const tokens = findRows(ResumeTokenRow)
      const toStep = (row: typeof StepRow.Type): ExecutionStep => row
      const toAttempt = (row: typeof AttemptRow.Type): ExecutionAttempt => row
      const first = <A>(rows: ReadonlyArray<A>): A | undefined => rows[0]

      const createRun = (input: NewRun) =>
        sql.withTransaction(Effect.gen(function*() {
          const at = input.created_at
          const trigger = { ...input.trigger, plan_id: input.plan_id, request_id: input.request_id }
          const [job] = yield* jobs(sql`INSERT INTO workflow_jobs ${
            sql.insert({
              job_id: input.job_id,
              key: input.key,
              lane: input.lane,
              status: "queued",
              trigger_kind: input.trigger_kind ?? "api",
              trigger: JSON.stringify(trigger),
              latest_run_id: input.run_id,
              created_at: at,
              updated_at: at
            })
          } RETURNING *`)
          const [run] = yield* runs(sql`INSERT INTO workflow_runs ${
            sql.insert({
              run_id: input.run_id,
              job_id: input.job_id,
              key: input.key,
              lane: input.lane,
              status: "queued",
              attempt: 1,
              plan_id: input.plan_id,
              request_id: input.request_id,
              steps_count: input.steps.length,
              created_at: at,
              updated_at: at,
              started_at: null,
              finished_at: null,
              paused_reason: null,
              paused_detail: null,
              policy_snapshot_id: input.policy_snapshot_id ?? null,
              budgets: json(input.budgets),
              budget_overridden_at: null
            })
          } RETURNING *`)
          const stepRows = input.steps.map((action, step_index) => ({
            // The id executors and nodes are given (`AttemptContext.step_id`).
            step_id: `${input.run_id}:${step_index}`,
            run_id: input.run_id,
            step_index,
            status: "queued",
            action: JSON.stringify(action),
            created_at: at,
            updated_at: at,
            approval_id: null
          }))
          const [head, ...tail] = stepRows
          if (head === undefined) return yield* Effect.die(new Error("a run has at least one step"))
          const written = yield* steps(sql`INSERT INTO workflow_steps ${sql.insert([head, ...tail])} RETURNING *`)
          return {
            job: job!,
            run: toRun(run!),
            steps: [...written].sort((a, b) => a.step_index - b.step_index).map(toStep)
          } satisfies CreatedRun
        }))

      const decodeRecord = (kind: MachineKind, rows: Effect.Effect<ReadonlyArray<unknown>, SqlError>) => {
        switch (kind) {
          case "job":
            return Effect.map(jobs(rows), first)
          case "run":
            return Effect.map(runs(rows), (r) => (r[0] === undefined ? undefined : toRun(r[0])))
          case "step":
            return Effect.map(steps(rows), (r) => (r[0] === undefined ? undefined : toStep(r[0])))
          case "attempt":
            return Effect.map(attempts(rows), (r) => (r[0] === undefined ? undefined : toAttempt(r[0])))
        }
      }

      const transition = <K extends MachineKind>(
        kind: K,
        id: string,
        from: ReadonlyArray<StatusOf[K]>,
        to: StatusOf[K],
        write: TransitionWrite<K>
      ): Effect.Effect<RecordOf[K] | undefined, SqlError> => {
        const illegal = from.length === 0 ? ["(none)"] : from.filter((f) => !canTransition(kind, f, to))
        if (illegal.length > 0) {
          return Effect.die(new Error(`${kind} cannot move from ${illegal.join(", ")} to ${to}`))
        }
        const [table, idColumn] = TABLE[kind]
        const set = columnsOf(kind, to, write as unknown as Record<string, unknown>)
        const startedAt = kind === "run" && to === "running"
          ? sql`, started_at = COALESCE(started_at, ${write.at})`
          : sql``
        const statement = sql`UPDATE ${sql(table)} SET ${sql.update(set)}${startedAt}
          WHERE ${sql(idColumn)} = ${id} AND ${sql.in("status", from)} RETURNING *`
        const laneHeld = (error: SqlError) =>
          kind === "run" && error.reason._tag === "UniqueViolation"
            ? Effect.succeed([])
            : Effect.fail(error)
        return decodeRecord(kind, Effect.catchTag(statement, "SqlError", laneHeld)) as Effect.Effect<
          RecordOf[K] | undefined,
          SqlError
        >
      }

      const startAttempt = (input: NewAttempt) =>
        Effect.map(
          attempts(sql`INSERT INTO workflow_attempts ${
            sql.insert({
              attempt_id: input.attempt_id ?? randomUUID(),
              step_id: input.step_id,
              run_id: input.run_id,
              attempt: input.attempt,
              status: "running",
              started_at: input.started_at,
              finished_at: null,
              result: null,
              error: null,
              postcondition_report: null,
              artifacts: "[]",
              cost: null,
              policy_decision: json(input.policy_decision),
              policy_applied_override_ids: JSON.stringify(input.policy_applied_override_ids ?? [])
            })
          } RETURNING *`),
          (rows) => toAttempt(rows[0]!)
        )

      const oneRun = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
        Effect.map(runs(statement), (r) => (r[0] === undefined ? undefined : toRun(r[0])))

      const nextQueuedInLane = (key: string, lane: Lane) =>
        oneRun(sql`SELECT * FROM workflow_runs WHERE key = ${key} AND lane = ${lane} AND status = 'queued'
          AND NOT EXISTS (SELECT 1 FROM workflow_runs h WHERE h.key = ${key} AND h.lane = ${lane}
            AND h.status IN ('running', 'paused'))
          ORDER BY seq LIMIT 1`)

      const laneHolder = (key: string, lane: Lane) =>
        oneRun(sql`SELECT * FROM workflow_runs WHERE key = ${key} AND lane = ${lane}
          AND status IN ('running', 'paused') ORDER BY seq LIMIT 1`)

      const unfinishedRuns = Effect.map(
        runs(sql`SELECT * FROM workflow_runs WHERE status IN ('queued', 'running', 'paused') ORDER BY seq`),
        (rows) => rows.map(toRun)
      )

      const listRuns = (query: RunListQuery) =>
        Effect.gen(function*() {
          const limit = query.limit ?? DEFAULT_RUN_PAGE
          const clauses: Array<Statement.Fragment> = []
          if (query.status !== undefined) clauses.push(sql`status = ${query.status}`)
          if (query.key !== undefined) clauses.push(sql`key = ${query.key}`)
          if (query.cursor !== undefined) {
            const after = runCursor.decode(query.cursor)
            if (after === undefined) return yield* new InvalidRunCursor({ message: "cursor: not a cursor of this listing" })
            clauses.push(sql`(created_at < ${after.createdAt} OR (created_at = ${after.createdAt} AND seq < ${after.id}))`)
          }
          const where = clauses.length === 0 ? sql`` : sql`WHERE ${sql.and(clauses)}`
          const rows = yield* runs(
            sql`SELECT * FROM workflow_runs ${where} ORDER BY created_at DESC, seq DESC LIMIT ${limit + 1}`
          )
          const page = rows.slice(0, limit)
          const last = page[page.length - 1]
          return {
            runs: page.map(toRun),
            ...(rows.length > limit && last !== undefined ? { next_cursor: runCursor.encode(last.created_at, last.seq) } : {})
          } satisfies WorkflowRunListResponse
        })

      const getRun = (runId: string) =>
        Effect.gen(function*() {
          const run = yield* oneRun(sql`SELECT * FROM workflow_runs WHERE run_id = ${runId}`)
          if (run === undefined) return undefined
          const stepRows = yield* steps(sql`SELECT * FROM workflow_steps WHERE run_id = ${runId} ORDER BY step_index`)
          const attemptRows = yield* attempts(
            sql`SELECT * FROM workflow_attempts WHERE run_id = ${runId} ORDER BY attempt, attempt_id`
          )
          const byStep = new Map<string, Array<ExecutionAttempt>>()
          for (const a of attemptRows) {
            const list = byStep.get(a.step_id) ?? []
            list.push(toAttempt(a))
            byStep.set(a.step_id, list)
          }
          const details: Array<ExecutionStepDetail> = stepRows.map((s) => ({
            ...toStep(s),
            attempts: byStep.get(s.step_id) ?? []
          }))
          return { run, steps: details } satisfies WorkflowRunDetail
        })

      const getJob = (jobId: string) => Effect.map(jobs(sql`SELECT * FROM workflow_jobs WHERE job_id = ${jobId}`), first)

      const getAttempt = (attemptId: string) =>
        Effect.map(attempts(sql`SELECT * FROM workflow_attempts WHERE attempt_id = ${attemptId}`), (r) =>
          r[0] === undefined ? undefined : toAttempt(r[0]))

      const spending = (runId: string) =>
        Effect.map(attempts(sql`SELECT * FROM workflow_attempts WHERE run_id = ${runId}`), (rows): RunSpending => {
          const sum = { usd_micros: 0, total_tokens: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0, attempts: rows.length }
          for (const row of rows) {
            const cost = row.cost
            if (cost === null) continue
            sum.usd_micros += cost.usd_micros ?? 0
            sum.input_tokens += cost.input_tokens ?? 0
            sum.output_tokens += cost.output_tokens ?? 0
            sum.total_tokens += cost.total_tokens ?? (cost.input_tokens ?? 0) + (cost.output_tokens ?? 0)
            sum.duration_ms += cost.duration_ms ?? 0
          }
          return sum
        })

      const tokenOfApproval = (approvalId: number) =>
        Effect.map(
          tokens(sql`SELECT * FROM workflow_resume_tokens WHERE approval_id = ${approvalId} ORDER BY created_at DESC LIMIT 1`),
          first
        )

      const issueToken = (token: NewResumeToken) =>
        Effect.map(
          tokens(sql`INSERT INTO workflow_resume_tokens ${
            sql.insert({ ...token, used_at: null, revoked_at: null })
          } RETURNING *`),
          (rows) => rows[0]!
        )

      const consumeToken = (digest: string, at: string) =>
        Effect.map(
          tokens(sql`UPDATE workflow_resume_tokens SET used_at = ${at}
            WHERE digest = ${digest} AND used_at IS NULL AND revoked_at IS NULL
            AND (expires_at IS NULL OR expires_at > ${at}) RETURNING *`),
          first
        )

      const revokeWhere = (clause: Statement.Fragment, at: string) =>
        tokens(sql`UPDATE workflow_resume_tokens SET revoked_at = ${at}
          WHERE ${clause} AND used_at IS NULL AND revoked_at IS NULL RETURNING *`)

      return RunsRepo.of(repositoryEdge("RunsRepo", {
        createRun,
        transition,
        startAttempt,
        nextQueuedInLane,
        laneHolder,
        unfinishedRuns,
        listRuns,
        getRun,
        getJob,
        getRunRecord: (runId) => oneRun(sql`SELECT * FROM workflow_runs WHERE run_id = ${runId}`),
        getStep: (stepId) =>
          Effect.map(steps(sql`SELECT * FROM workflow_steps WHERE step_id = ${stepId}`), (r) => (r[0] === undefined ? undefined : toStep(r[0]))),
        getAttempt,
        spending,
        tokenOfApproval,
        issueToken,
        consumeToken,
        revokeTokensForRun: (runId, at) => revokeWhere(sql`run_id = ${runId}`, at),
        revokeTokensForApproval: (approvalId, at) => revokeWhere(sql`approval_id = ${approvalId}`, at),
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}
