/**
 * Http steps through a run with the real executors and `HttpStepContext`
 * (issue 20 §3): a host name that passes the policy gate but resolves to an
 * address the run's policy snapshot denies fails the attempt with
 * `policy_denied` and never reaches the target; the real action of a step
 * recorded redacted is what the executor sends, and it is forgotten when the
 * run ends.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { Dns } from "effect/net"
import { NodeDispatch } from "../../../services/nodes/NodeDispatch.ts"
import { PolicyBundle } from "../../../services/policy-bundle/PolicyBundle.ts"
import { SecretResolver } from "../../../services/secrets/SecretStore.ts"
import { SecretsRepo } from "../../../services/secrets/SecretsRepo.ts"
import { CliSandbox } from "../../../services/workflow/executors/CliSandbox.ts"
import { HttpStepContext } from "../../../services/workflow/executors/HttpStepContext.ts"
import { StepExecutorLive } from "../../../services/workflow/executors/StepExecutorLive.ts"
import { StepInputsRepo } from "../../../services/workflow/inputs/StepInputsRepo.ts"
import { RunsRepo } from "../../../services/workflow/runs/RunsRepo.ts"
import { Workflow, workflowWith } from "../../../services/workflow/Workflow.ts"
import { sqliteFile } from "../../support/databases.ts"
import { eventually } from "../../support/eventually.ts"
import { startHttpTarget } from "../../support/httpTarget.ts"
import { approvalsLayer } from "../approvals/support.ts"

/** A bundle whose gate allows everything; the run's snapshot denies `deny`. */
const policyDenying = (deny: ReadonlyArray<string>) => Layer.succeed(PolicyBundle)({
  effective: Effect.succeed({ policy_snapshot_id: "snapshot-egress", sha256: "0".repeat(64), bundle: {}, sources: {} } as any),
  effectiveWithPlaybook: () => Effect.die("unused"),
  evaluateToolCall: () => Effect.succeed({ decision: "allow", rules: [], applied_override_ids: [], suggested_overrides: [] } as any),
  getOrCreateSnapshot: () => Effect.die("unused"),
  getSnapshot: (id) =>
    Effect.succeed(
      id === "snapshot-egress"
        ? {
          policy_snapshot_id: id,
          sha256: "0".repeat(64),
          created_at: "2026-01-01T00:00:00.000Z",
          bundle: { network_egress: { default: "allow", allow: [], require_approval: [], deny } } as any
        }
        : undefined
    )
})

const runtimeWith = (hosts: Record<string, Array<string>>, deny: ReadonlyArray<string>) => {
  const executors = StepExecutorLive.pipe(
    Layer.provide(CliSandbox.layerWith({ enabled: false, allowUnsandboxed: false, hidden: [] })),
    Layer.provide(Dns.layerStatic({ hosts })),
    Layer.provide(Layer.succeed(NodeDispatch, {} as NodeDispatch["Service"]))
  )
  const httpSteps = HttpStepContext.layerNoDeps.pipe(
    Layer.provide([RunsRepo.layer, SecretsRepo.layer, Layer.succeed(SecretResolver, {
      resolve: () => Effect.succeed(Redacted.make("x")),
      resolveChecked: () => Effect.die("unused")
    })])
  )
  return ManagedRuntime.make(
    workflowWith(executors).pipe(
      Layer.provideMerge(httpSteps),
      Layer.provideMerge(policyDenying(deny)),
      Layer.provideMerge(StepInputsRepo.layer),
      Layer.provideMerge(approvalsLayer(sqliteFile)),
      Layer.orDie
    )
  )
}

const settled = async (runtime: ReturnType<typeof runtimeWith>, run_id: string) => {
  let detail: any
  await eventually(async () => {
    detail = await runtime.runPromise(Effect.flatMap(Workflow, (wf) => wf.get(run_id)))
    return !["queued", "running"].includes(detail.run.status)
  }, `run ${run_id} to end`, 30_000)
  return detail
}

describe("Http steps in a run", () => {
  it("a name resolving to a denied address fails with policy_denied; the target is never called", async () => {
    const target = await startHttpTarget()
    const runtime = runtimeWith({ "svc-target.test": ["127.0.0.1"] }, ["http://127.0.0.1:*"])
    try {
      const port = new URL(target.url).port
      const { run_id } = await runtime.runPromise(Effect.flatMap(Workflow, (wf) =>
        wf.run({
          key: "agent:default:main",
          lane: "main",
          steps: [{ type: "Http", args: { url: `http://svc-target.test:${port}/x` }, max_attempts: 1, timeout_ms: 10_000 }]
        })))
      const detail = await settled(runtime, run_id)
      expect(detail.run.status).toBe("failed")
      expect(detail.steps[0].attempts[0].error).toEqual({
        code: "policy_denied",
        message: `GET http://svc-target.test:${port} denied: svc-target.test resolves to 127.0.0.1, which network_egress denies (http://127.0.0.1:*)`
      })
      expect(target.calls).toEqual([])
    } finally {
      await runtime.dispose()
      await target.close()
    }
  })

  it("a redacted step runs with its real values, which are forgotten when the run ends", async () => {
    const target = await startHttpTarget()
    const runtime = runtimeWith({ "svc-target.test": ["127.0.0.1"] }, ["http://169.254.169.254/*"])
    try {
      const { run_id } = await runtime.runPromise(Effect.flatMap(Workflow, (wf) =>
        wf.run({
          key: "agent:default:main",
          lane: "main",
          steps: [{ type: "Http", args: { url: target.url.replace("127.0.0.1", "svc-target.test"), headers: { "x-api-key": "k-real" } }, max_attempts: 1, timeout_ms: 10_000 }]
        })))
      const detail = await settled(runtime, run_id)
      expect(detail.run.status).toBe("succeeded")
      expect(detail.steps[0].action.args.headers).toEqual({ "x-api-key": "[redacted]" })
      expect(target.headers[0]?.["x-api-key"]).toBe("k-real")
      await eventually(async () =>
        (await runtime.runPromise(Effect.flatMap(StepInputsRepo, (inputs) => inputs.forRun(run_id)))).size === 0, "the inputs to be deleted")
    } finally {
      await runtime.dispose()
      await target.close()
    }
  })
})
