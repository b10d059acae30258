/**
 * Test support for the workflow engine: a fake `StepExecutor` counting calls
 * per run in a module-level map (it outlives runtimes, so a test can check
 * that a rebuilt engine does not execute finished steps again), and
 * databases that survive a runtime (so a second runtime opens the same one).
 */
import type { WorkflowStep } from "../../../../services/workflow/runs/schema.ts"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SqlClient from "effect/sql/SqlClient"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as PgClient from "../../../../layers/storage/PgClient.ts"
import { storageLayer } from "../../../../layers/storage/Storage.ts"
import type { ActionPrimitive } from "../../../../services/planner/schema.ts"
import { makeWorkflowEngineLayer } from "../../../../services/workflow/engine/WorkflowEngineLive.ts"
import { WorkflowRuns, WorkflowRunsLive } from "../../../../services/workflow/engine/WorkflowRuns.ts"
import { AttemptFailed, StepExecutor } from "../../../../services/workflow/StepExecutor.ts"
import { postgresUrl } from "../../../support/databases.ts"

/** Step indexes executed, per run id, in call order. */
export const calls = new Map<string, Array<number>>()
export const callsOf = (run_id: string): ReadonlyArray<number> => calls.get(run_id) ?? []

/** Gates a step with `args.hold: <name>` waits on until {@link release}`(name)`. */
const holds = new Map<string, { promise: Promise<void>; open: () => void }>()
const holdOf = (name: string) => {
  let hold = holds.get(name)
  if (hold === undefined) {
    let open!: () => void
    const promise = new Promise<void>((resolve) => (open = resolve))
    hold = { promise, open }
    holds.set(name, hold)
  }
  return hold
}
/** Lets the steps holding on `name` finish. */
export const release = (name: string) => holdOf(name).open()

/**
 * Records each call. Args: `fail: <code>` fails every attempt with that code;
 * `fail_times: n` fails the first n attempts (code `flaky`); `hold: <name>`
 * waits for {@link release}; `cost: {...}` is reported as the attempt's cost.
 */
export const FakeExecutor = Layer.succeed(StepExecutor)({
  execute: (action, context) =>
    Effect.gen(function*() {
      const list = calls.get(context.run_id) ?? []
      list.push(context.step_index)
      calls.set(context.run_id, list)
      const hold = action.args["hold"]
      if (typeof hold === "string") yield* Effect.promise(() => holdOf(hold).promise)
      const fail = action.args["fail"]
      if (typeof fail === "string") return yield* new AttemptFailed({ code: fail, message: `step ${context.step_index} failed` })
      const failTimes = action.args["fail_times"]
      if (typeof failTimes === "number" && context.attempt <= failTimes) {
        return yield* new AttemptFailed({ code: "flaky", message: `attempt ${context.attempt} failed` })
      }
      const cost = action.args["cost"] as { usd_micros?: number } | undefined
      return { result: { step: context.step_index, attempt_id: context.attempt_id }, ...(cost === undefined ? {} : { cost }) }
    })
})

export const step = (type: ActionPrimitive["type"], args: Record<string, unknown> = {}): WorkflowStep => ({
  type,
  args,
  max_attempts: 1,
  timeout_ms: 60_000
})

/** A database that outlives runtimes: `storage()` opens it, `drop()` removes it. */
export interface DurableTestDatabase {
  readonly name: string
  /** PostgreSQL: the schema holding the tables. */
  readonly schema?: string
  readonly kind: "sqlite" | "postgres"
  readonly storage: () => Layer.Layer<SqlClient.SqlClient, unknown>
  readonly drop: () => Promise<void>
}

export const sqliteFileDatabase = (): DurableTestDatabase => {
  const directory = mkdtempSync(join(tmpdir(), "svc-wf-"))
  return {
    name: "sqlite (file)",
    kind: "sqlite",
    storage: () => storageLayer({ kind: "sqlite", filename: join(directory, "test.db") }),
    drop: async () => rmSync(directory, { recursive: true, force: true })
  }
}

const withAdmin = <A, E>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.provide(PgClient.layer({ url, maxConnections: 1 }))))

export const postgresSchemaDatabase = async (url: string): Promise<DurableTestDatabase> => {
  const schema = `svc_test_${randomBytes(6).toString("hex")}`
  await withAdmin(url, (sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  return {
    name: "postgresql",
    kind: "postgres",
    schema,
    storage: () => storageLayer({ kind: "postgres", url, searchPath: schema }),
    drop: () => withAdmin(url, (sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`).then(() => undefined)
  }
}

/** The backends: a SQLite file always, PostgreSQL when `SVC_TEST_DATABASE_URL` is set. */
export const backends: ReadonlyArray<{ readonly name: string; readonly open: () => Promise<DurableTestDatabase> }> = [
  { name: "sqlite (file)", open: async () => sqliteFileDatabase() },
  ...(postgresUrl === undefined ? [] : [{ name: "postgresql", open: () => postgresSchemaDatabase(postgresUrl!) }])
]

/**
 * A runtime with `WorkflowRuns` on `db`. Advisory shard locks are off:
 * PostgreSQL advisory locks are per database, not per schema, so test
 * schemas in one database would contend for the same shards; the table
 * locks live in the schema.
 */
export const makeRuntime = (db: DurableTestDatabase) =>
  ManagedRuntime.make(
    WorkflowRunsLive.pipe(
      Layer.provide(makeWorkflowEngineLayer({ shardLockDisableAdvisory: true })),
      Layer.provide(FakeExecutor),
      Layer.provide(Layer.orDie(db.storage()))
    )
  )

export { WorkflowRuns }
