/**
 * The workflow's tables (layers/storage/table.ts): the run records
 * (`workflow_jobs`, `workflow_runs`, `workflow_steps`, `workflow_attempts`,
 * `workflow_resume_tokens`), which snapshots carry, and two kinds a snapshot
 * leaves out: the inline credentials of unfinished runs
 * (`workflow_step_inputs`) and the durable engine's journal (`cluster_*`).
 *
 * @module
 */
import { excludedTable, table, type TableDeclaration } from "../../layers/storage/table.ts"
import { workflowStepInputsMigrations } from "./inputs/migrations/index.ts"
import { workflowRunsMigrations } from "./runs/migrations/index.ts"
import { AttemptRow, JobRow, ResumeTokenRow, RunRow, StepRow } from "./runs/RunsRepo.ts"

const owner = { subsystem: "workflow_runs", migrations: workflowRunsMigrations }

/** The workflow's table declarations. */
export const WorkflowTables: ReadonlyArray<TableDeclaration> = [
  table({ name: "workflow_jobs", primaryKey: ["job_id"], row: JobRow, owner }),
  table({
    name: "workflow_runs",
    primaryKey: ["seq"],
    row: RunRow,
    owner,
    references: ["workflow_jobs", "plans", "policy_snapshots"]
  }),
  table({ name: "workflow_steps", primaryKey: ["step_id"], row: StepRow, owner, references: ["workflow_runs", "approvals"] }),
  table({ name: "workflow_attempts", primaryKey: ["attempt_id"], row: AttemptRow, owner, references: ["workflow_steps"] }),
  table({
    name: "workflow_resume_tokens",
    primaryKey: ["digest"],
    row: ResumeTokenRow,
    owner,
    references: ["workflow_runs", "approvals"]
  }),
  excludedTable(
    "workflow_step_inputs",
    "the inline credentials of unfinished runs' Http steps (their records are redacted); a snapshot never carries them " +
      "(docs/workflow.md \"Where inline credentials live\")",
    { subsystem: "workflow_step_inputs", migrations: workflowStepInputsMigrations }
  ),
  excludedTable(
    "cluster_*",
    "the durable workflow engine's in-flight state (replies, messages, locks of the effect/cluster runner), tied to the " +
      "engine instance and shard layout of one database and not portable; the run records (workflow_*) are what a " +
      "snapshot carries (docs/operations.md \"Runs in flight\")"
  )
]
