/**
 * Plan persistence (table `plans`, services/planner/migrations). Rows are
 * encoded and decoded with the row schemas below (`SqlSchema`), the same on
 * SQLite and PostgreSQL. The plan's audit records live in the audit chain
 * (services/audit; migration 1's `planner_events` is no longer written: its
 * rows were moved into the chain, docs/audit.md "Planner records").
 *
 * A plan is created in one transaction ({@link PlansRepo.transaction}):
 * `claim` inserts the row unless its request_id is taken (the unique index
 * decides between concurrent duplicates), then `complete` stores the response
 * (and the planner appends its audit events). The execution columns (migration 2:
 * `execution_state`, `run_id`) move only through conditional writes
 * (`moveExecution`, `recordRun`), so a run is started at most once.
 *
 * @module
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { migrate } from "../../layers/storage/migrations.ts"
import { PolicyDecision } from "../policy/schema.ts"
import { plannerMigrations } from "./migrations/index.ts"
import { PlanResponse, PlanStatus } from "./schema.ts"
import { JsonTextColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"

/**
 * A stored plan. `request_json` is the canonical JSON of the decoded request
 * (sorted keys), compared as text to recognise a repeated request.
 * `response_json` is null only inside the transaction that creates the plan.
 */
export const PlanRow = Schema.Struct({
  plan_id: Schema.String,
  request_id: Schema.String,
  status: PlanStatus,
  request_json: JsonTextColumn,
  decision_json: Schema.fromJsonString(PolicyDecision),
  response_json: Schema.NullOr(Schema.fromJsonString(PlanResponse)),
  created_at: TimestampColumn
})
export type PlanRecord = typeof PlanRow.Type

/** Where a plan asked to run stands (migration 2; docs/planner.md "Execution"). */
export const ExecutionState = Schema.Literals(["requested", "starting", "started", "declined"])
export type ExecutionState = typeof ExecutionState.Type

/** A plan's execution columns: `execution_state` null when it was not asked to run. */
export const PlanExecutionRow = Schema.Struct({
  execution_state: Schema.NullOr(ExecutionState),
  run_id: Schema.NullOr(Schema.String)
})
export type PlanExecutionRecord = typeof PlanExecutionRow.Type

/** Repository of plans over `SqlClient`. */
export class PlansRepo extends Context.Service<PlansRepo, {
  /** Runs `effect` in one transaction (nested calls use savepoints). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Inserts a plan without its response, unless a plan with its request_id
   * exists (then nothing is written). True when this call inserted it.
   */
  readonly claim: (plan: Omit<PlanRecord, "response_json">) => Effect.Effect<boolean>
  /** Stores the response of a claimed plan. */
  readonly complete: (planId: string, response: PlanResponse) => Effect.Effect<void>
  readonly findByRequestId: (requestId: string) => Effect.Effect<PlanRecord | undefined>
  readonly findByPlanId: (planId: string) => Effect.Effect<PlanRecord | undefined>
  /** Marks a plan as asked to run (`requested`); inside its creating transaction. */
  readonly requestExecution: (planId: string) => Effect.Effect<void>
  /** The plan's execution columns, or `undefined` when there is no such plan. */
  readonly execution: (planId: string) => Effect.Effect<PlanExecutionRecord | undefined>
  /**
   * One conditional write: `from` → `to` (e.g. `requested` → `starting`, the
   * claim that lets one caller start the run). True when this call moved it.
   */
  readonly moveExecution: (planId: string, from: ExecutionState, to: ExecutionState) => Effect.Effect<boolean>
  /** `starting` → `started` with the run's id. */
  readonly recordRun: (planId: string, runId: string) => Effect.Effect<void>
  /** The plans still `requested`, oldest first (checked again at start-up). */
  readonly requestedExecutions: Effect.Effect<ReadonlyArray<string>>
}>()("svc-gateway/planner/PlansRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the planner migrations first. */
  static readonly layer = Layer.effect(
    PlansRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("planner", plannerMigrations)

      const ClaimRow = PlanRow.mapFields(({ response_json: _, ...fields }) => fields)
      const claim = SqlSchema.findOneOption({
        Request: ClaimRow,
        Result: Schema.Struct({ plan_id: Schema.String }),
        execute: (row) =>
          sql`INSERT INTO plans ${sql.insert(row)} ON CONFLICT (request_id) DO NOTHING RETURNING plan_id`
      })
      const complete = SqlSchema.void({
        Request: Schema.Struct({ plan_id: Schema.String, response_json: Schema.fromJsonString(PlanResponse) }),
        execute: ({ plan_id, response_json }) =>
          sql`UPDATE plans SET response_json = ${response_json} WHERE plan_id = ${plan_id}`
      })
      const findBy = (column: "request_id" | "plan_id") =>
        SqlSchema.findOneOption({
          Request: Schema.String,
          Result: PlanRow,
          execute: (value) => sql`SELECT * FROM plans WHERE ${sql(column)} = ${value}`
        })
      const findByRequestId = findBy("request_id")
      const findByPlanId = findBy("plan_id")

      const requestExecution = (planId: string) =>
        Effect.asVoid(sql`UPDATE plans SET execution_state = 'requested' WHERE plan_id = ${planId}`)
      const execution = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: PlanExecutionRow,
        execute: (planId) => sql`SELECT execution_state, run_id FROM plans WHERE plan_id = ${planId}`
      })
      const moveExecution = (planId: string, from: ExecutionState, to: ExecutionState) =>
        Effect.map(
          sql`UPDATE plans SET execution_state = ${to}
              WHERE plan_id = ${planId} AND execution_state = ${from} RETURNING plan_id`,
          (rows) => rows.length > 0
        )
      const recordRun = (planId: string, runId: string) =>
        Effect.asVoid(sql`UPDATE plans SET execution_state = 'started', run_id = ${runId}
                          WHERE plan_id = ${planId} AND execution_state = 'starting' AND run_id IS NULL`)
      const requestedExecutions = Effect.map(
        findRows(Schema.Struct({ plan_id: Schema.String }))(
          sql`SELECT plan_id FROM plans WHERE execution_state = 'requested' ORDER BY created_at, plan_id`
        ),
        (rows) => rows.map((row) => row.plan_id)
      )

      // A row that does not decode is corrupt storage, not a client's mistake: a defect.
      const optional = <A>(effect: Effect.Effect<Option.Option<A>, SqlError | Schema.SchemaError>) =>
        Effect.map(effect, Option.getOrUndefined)

      return PlansRepo.of(repositoryEdge("PlansRepo", {
        transaction: transactionAtEdge(sql.withTransaction),
        claim: (plan) => Effect.map(claim(plan), Option.isSome),
        complete: (planId, response) => complete({ plan_id: planId, response_json: response }),
        findByRequestId: (requestId) => optional(findByRequestId(requestId)),
        findByPlanId: (planId) => optional(findByPlanId(planId)),
        requestExecution,
        execution: (planId) => optional(execution(planId)),
        moveExecution,
        recordRun,
        requestedExecutions
      }))
    })
  )
}
