/**
 * The real actions of steps whose stored records were redacted (issue 20
 * §6; docs/workflow.md "Where inline credentials live"). A step with inline
 * credentials (an `Authorization` header, a URL's userinfo or token query
 * parameter) is stored and served redacted (`executors/httpRedaction.ts`);
 * what the executor must send is kept here, in `workflow_step_inputs`, from
 * the run's creation until it ends, so a queued run admitted later (or after
 * a restart) still sends the real values. Never served, never exported in a
 * snapshot. Rows of runs that ended are deleted (at the end, and at start for
 * any left by a stop).
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { migrate } from "../../../layers/storage/migrations.ts"
import { findRows } from "../../../layers/storage/rows.ts"
import { WorkflowStep } from "../runs/schema.ts"
import { workflowStepInputsMigrations } from "./migrations/index.ts"
import { repositoryEdge } from "../../../layers/storage/repositoryEdge.ts"

/** One step's real action. */
export interface StepInput {
  readonly step_index: number
  readonly action: WorkflowStep
}

const InputRow = Schema.Struct({ step_index: Schema.Int, action: Schema.fromJsonString(WorkflowStep) })

/** The stored inputs. Errors are storage errors. */
export class StepInputsRepo extends Context.Service<StepInputsRepo, {
  /** Keeps the real actions of a new run's redacted steps (inside the caller's transaction). */
  readonly save: (run_id: string, inputs: ReadonlyArray<StepInput>) => Effect.Effect<void>
  /** The real actions of `run_id`'s redacted steps, by step index. */
  readonly forRun: (run_id: string) => Effect.Effect<ReadonlyMap<number, WorkflowStep>>
  /** Forgets `run_id`'s inputs (it ended). */
  readonly deleteRun: (run_id: string) => Effect.Effect<void>
  /** Forgets the inputs of every run that is not queued, running or paused (or no longer exists). */
  readonly deleteFinished: Effect.Effect<void>
}>()("svc-gateway/workflow/StepInputsRepo") {
  /** Over the `SqlClient` (migrates `workflow_step_inputs`). */
  static readonly layer = Layer.effect(
    StepInputsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("workflow_step_inputs", workflowStepInputsMigrations)
      const rows = findRows(InputRow)
      const encode = Schema.encodeSync(Schema.fromJsonString(WorkflowStep))
      return StepInputsRepo.of(repositoryEdge("StepInputsRepo", {
        save: (run_id, inputs) =>
          Effect.forEach(inputs, (input) =>
            sql`INSERT INTO workflow_step_inputs ${
              sql.insert({ run_id, step_index: input.step_index, action: encode(input.action) })
            }`, { discard: true }),
        forRun: (run_id) =>
          Effect.map(
            rows(sql`SELECT step_index, action FROM workflow_step_inputs WHERE run_id = ${run_id}`),
            (found) => new Map(found.map((row) => [row.step_index, row.action]))
          ),
        deleteRun: (run_id) => Effect.asVoid(sql`DELETE FROM workflow_step_inputs WHERE run_id = ${run_id}`),
        deleteFinished: Effect.asVoid(sql`DELETE FROM workflow_step_inputs WHERE run_id NOT IN (
          SELECT run_id FROM workflow_runs WHERE status IN ('queued', 'running', 'paused'))`)
      }))
    })
  )
}
