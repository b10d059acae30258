/**
 * The workflow service on a SQLite file with the fake executor
 * (engine/support.ts) and a policy bundle that allows every step: what the
 * service tests share. The policy gate itself is tested through the gateway
 * (test/http/workflow-*.test.ts).
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { Approvals } from "../../../services/approvals/Approvals.ts"
import type { Principal } from "../../../services/auth/principal.ts"
import { PolicyBundle } from "../../../services/policy-bundle/PolicyBundle.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import type { WorkflowStep } from "../../../services/workflow/runs/schema.ts"
import { Workflow, workflowWith } from "../../../services/workflow/Workflow.ts"
import { fakeConnection } from "../../support/connections.ts"
import { sqliteFile } from "../../support/databases.ts"
import { approvalsLayer } from "../approvals/support.ts"
import { FakeExecutor } from "./engine/support.ts"
import { httpStepContext } from "./executors/support.ts"

/** A policy bundle that allows every step. */
export const AllowAll = Layer.succeed(PolicyBundle)({
  effective: Effect.succeed({ policy_snapshot_id: "snapshot-test", sha256: "0".repeat(64), bundle: {}, sources: {} } as any),
  effectiveWithPlaybook: () => Effect.die("unused"),
  evaluateToolCall: () => Effect.succeed({ decision: "allow", rules: [], applied_override_ids: [], suggested_overrides: [] }),
  getOrCreateSnapshot: () => Effect.die("unused"),
  getSnapshot: () => Effect.succeed(undefined)
})

/** A runtime with the workflow service, approvals and event bus on a fresh SQLite file. */
export const makeWorkflowRuntime = () =>
  ManagedRuntime.make(
    workflowWith(FakeExecutor).pipe(
      Layer.provide([AllowAll, httpStepContext().layer]),
      Layer.provideMerge(approvalsLayer(sqliteFile)),
      Layer.orDie
    )
  )
export type WorkflowRuntime = ReturnType<typeof makeWorkflowRuntime>

/** Helpers over a runtime. */
export const workflowHelpers = (runtime: WorkflowRuntime) => {
  const use = <A, E>(f: (wf: Workflow["Service"]) => Effect.Effect<A, E>) => runtime.runPromise(Effect.flatMap(Workflow, f))
  const approvals = <A, E>(f: (a: Approvals["Service"]) => Effect.Effect<A, E>) => runtime.runPromise(Effect.flatMap(Approvals, f))
  const detail = (run_id: string) => use((wf) => wf.get(run_id))
  return {
    use,
    approvals,
    detail,
    runStatus: async (run_id: string) => (await detail(run_id)).run.status,
    /** Registers a fake operator connection (admin unless `principal`) that records its events. */
    watch: async (id: string, principal?: Principal) => {
      const connection = fakeConnection({ id, ...(principal === undefined ? {} : { principal }) })
      await runtime.runPromise(Effect.flatMap(ConnectionRegistry, (registry) => registry.add(connection.handle)))
      return connection
    },
    start: (steps: ReadonlyArray<Partial<WorkflowStep> & Pick<WorkflowStep, "type">>, options: { key?: string; budgets?: Record<string, number> } = {}) =>
      use((wf) =>
        wf.run({
          key: options.key ?? "agent:default:main",
          lane: "main",
          ...(options.budgets === undefined ? {} : { budgets: options.budgets }),
          steps: steps.map((s) => ({ args: {}, max_attempts: 3, timeout_ms: 60_000, ...s }))
        })
      )
  }
}
