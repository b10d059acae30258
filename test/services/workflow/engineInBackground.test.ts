/**
 * The workflow runner off the start-up path (services/workflow/engineInBackground.ts):
 * until the start-up gate opens the durable engine is not built (no runner
 * registered, no cluster tables), the service is already usable for what
 * needs no engine, and a run requested meanwhile waits for the engine, then
 * runs to completion.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import * as SqlClient from "effect/sql/SqlClient"
import { afterAll, describe, expect, it } from "vitest"
import { makeStartupGate } from "../../../services/backplane/StartupGate.ts"
import { Workflow, workflowWith } from "../../../services/workflow/Workflow.ts"
import { sqliteFile } from "../../support/databases.ts"
import { eventually } from "../../support/eventually.ts"
import { approvalsLayer } from "../approvals/support.ts"
import { FakeExecutor } from "./engine/support.ts"
import { httpStepContext } from "./executors/support.ts"
import { AllowAll } from "./support.ts"

describe("workflow engine started behind the start-up gate", () => {
  const startup = Effect.runSync(makeStartupGate)
  const runtime = ManagedRuntime.make(
    workflowWith(FakeExecutor).pipe(
      Layer.provide([AllowAll, httpStepContext().layer]),
      Layer.provideMerge(approvalsLayer(sqliteFile)),
      Layer.provide(startup.gate),
      Layer.orDie
    )
  )
  afterAll(() => runtime.dispose())

  const clusterTables = () =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'cluster_%'`
    )).then((rows) => rows.map((r) => r.name))

  it("builds the engine only once the gate opens; a run requested before waits for it and completes", async () => {
    const listed = await runtime.runPromise(Effect.flatMap(Workflow, (wf) => wf.list({})))
    expect(listed.runs).toEqual([])
    expect(await clusterTables()).toEqual([])

    let settled = false
    const run = runtime.runPromise(Effect.flatMap(Workflow, (wf) =>
      wf.run({ key: "agent:default:main", lane: "main", steps: [{ type: "Llm", args: {}, max_attempts: 1, timeout_ms: 60_000 }] })
    )).finally(() => (settled = true))
    // The run is recorded (queued, then admitted), but its start waits for the engine.
    await eventually(async () => (await runtime.runPromise(Effect.flatMap(Workflow, (wf) => wf.list({})))).runs.length === 1, "run recorded")
    expect(settled).toBe(false)
    expect(await clusterTables()).toEqual([])

    await runtime.runPromise(startup.open)
    const started = await run
    expect(await clusterTables()).toContain("cluster_runners")
    await eventually(
      async () => (await runtime.runPromise(Effect.flatMap(Workflow, (wf) => wf.get(started.run_id)))).run.status === "succeeded",
      "run succeeded",
      20_000
    )
  }, 60_000)
})
