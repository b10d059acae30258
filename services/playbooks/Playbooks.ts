/**
 * The playbooks service (issue 13 §1; reference §6.6; gateway-api.md
 * "Playbooks"; docs/playbooks.md): the playbooks of
 * `$SVC_HOME/playbooks/<name>/playbook.yml`, loaded at start and reloaded
 * when the directory changes (`watch.ts`), compiled to workflow steps
 * (`compile.ts`), judged against the policy bundle without side effects
 * (dry run), and run durably through `Workflow.run`.
 *
 * The loaded set is replaced whole on each reload (one `Ref`): a reader
 * sees the set before or after, never half of one. A file that fails to
 * load is listed in `errors` and logged as a warning once per change.
 *
 * @module
 */
import { NodeServices } from "@effect/platform-node"
import { Clock, Context, Effect, FileSystem, Layer, Ref, Semaphore } from "effect"
import { join } from "node:path"
import { GatewayConfig } from "../../layers/config.ts"
import { PolicyBundle } from "../policy-bundle/PolicyBundle.ts"
import { NotFound } from "../shared/errors.ts"
import { DEFAULT_AGENT_ID } from "../shared/agent.ts"
import { toolCallOf } from "../workflow/executors/toolCall.ts"
import { DEFAULT_LANE } from "../workflow/runs/keys.ts"
import type { WorkflowStep } from "../workflow/runs/schema.ts"
import { type RunOptions, Workflow, WorkflowLive } from "../workflow/Workflow.ts"
import { EMPTY_STATE, type LoadedPlaybook, loadDirectory, type PlaybookState } from "./loader.ts"
import type {
  PlaybookDetail,
  PlaybookDryRun,
  PlaybookDryRunStep,
  PlaybookExecuteRequest,
  PlaybookExecuteResponse,
  PlaybookListResponse,
  PlaybookSummary
} from "./schema.ts"
import { watchDirectory } from "./watch.ts"

/** The playbook directory under a gateway home. */
export const playbooksDirectory = (home: string): string => join(home, "playbooks")

/** The workflow key of a playbook execution that names none: `cron:playbook-<id>`. */
export const defaultPlaybookKey = (id: string): string => `cron:playbook-${id}`

/** The dry-run verdict of a playbook's approval (Confirm) step. */
const APPROVAL_VERDICT: PlaybookDryRunStep["policy"] = {
  decision: "require_approval",
  rules: [{ rule: "playbook_approval", outcome: "require_approval", detail: "approval: required" }]
}

/** The playbooks service. File-system and storage failures are logged or defects; the only typed error is `NotFound`. */
export class Playbooks extends Context.Service<Playbooks, {
  /** Every loaded playbook (summary) and every file that failed to load. */
  readonly list: Effect.Effect<PlaybookListResponse>
  /** One playbook (summary fields + manifest + compiled steps); unknown: NotFound. */
  readonly get: (id: string) => Effect.Effect<PlaybookDetail, NotFound>
  /** The compiled workflow steps of a playbook; unknown: NotFound. */
  readonly compile: (id: string) => Effect.Effect<ReadonlyArray<WorkflowStep>, NotFound>
  /** Dry run: compile and judge every step against the effective policy bundle, no side effects. */
  readonly dryRun: (id: string) => Effect.Effect<PlaybookDryRun, NotFound>
  /** Starts a durable run of the playbook through Workflow.run (no engine-enabled check here: transports check it). */
  readonly execute: (
    id: string,
    request: PlaybookExecuteRequest,
    options?: RunOptions
  ) => Effect.Effect<PlaybookExecuteResponse, NotFound>
  /** Re-reads the directory now (also what the watcher does). */
  readonly reload: Effect.Effect<void>
}>()("svc-gateway/playbooks/Playbooks") {
  /**
   * The service over `$SVC_HOME/playbooks` (created, mode 0700, when
   * missing): loads it before the layer is built, then watches it in a
   * background fiber of the layer's scope. Needs `GatewayConfig`,
   * `Workflow`, `PolicyBundle` and a `FileSystem`.
   */
  static readonly layerNoDeps = Layer.effect(
    Playbooks,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      const fs = yield* FileSystem.FileSystem
      const workflow = yield* Workflow
      const policy = yield* PolicyBundle
      const clock = yield* Clock.Clock
      const dir = playbooksDirectory(settings.home)

      yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 }).pipe(
        Effect.catch((error) => Effect.logWarning(`playbooks: cannot create ${dir}: ${error.message}`))
      )

      const state = yield* Ref.make<PlaybookState>(EMPTY_STATE)
      const serial = yield* Semaphore.make(1)

      const announce = (before: PlaybookState, after: PlaybookState) =>
        Effect.gen(function*() {
          const known = new Set(before.errors.map((e) => `${e.file_path}\u0000${e.message}\u0000${e.line}`))
          for (const error of after.errors) {
            if (known.has(`${error.file_path}\u0000${error.message}\u0000${error.line}`)) continue
            yield* Effect.logWarning(`playbooks: ${error.file_path}${error.line === undefined ? "" : `:${error.line}`}: ${error.message}`)
          }
          const loaded = (s: PlaybookState) => [...s.playbooks.values()].map((p) => `${p.manifest.id}@${p.loaded_at}`).sort().join(",")
          if (loaded(before) !== loaded(after) || before.errors.length !== after.errors.length) {
            yield* Effect.logInfo("playbooks: loaded").pipe(
              Effect.annotateLogs({ directory: dir, playbooks: after.playbooks.size, errors: after.errors.length })
            )
          }
        })

      const reload = serial.withPermits(1)(Effect.gen(function*() {
        const before = yield* Ref.get(state)
        const after = yield* loadDirectory(dir, before)
        yield* Ref.set(state, after)
        yield* announce(before, after)
      })).pipe(
        Effect.provideService(FileSystem.FileSystem, fs),
        Effect.provideService(Clock.Clock, clock),
        Effect.withSpan("Playbooks.reload")
      )

      yield* reload
      yield* Effect.forkScoped(watchDirectory(dir, reload).pipe(Effect.provideService(FileSystem.FileSystem, fs)))

      const find = (id: string) =>
        Effect.flatMap(Ref.get(state), (s) => {
          const playbook = s.playbooks.get(id)
          return playbook === undefined
            ? Effect.fail(new NotFound({ message: `playbook ${id} not found` }))
            : Effect.succeed(playbook)
        })

      const summaryOf = (p: LoadedPlaybook): PlaybookSummary => ({
        id: p.manifest.id,
        name: p.manifest.name,
        description: p.manifest.description ?? null,
        version: p.manifest.version,
        step_count: p.manifest.steps.length,
        file_path: p.file_path,
        loaded_at: p.loaded_at
      })

      const judge = Effect.fnUntraced(function*(step: WorkflowStep) {
        const call = toolCallOf(step)
        if (call === undefined) return APPROVAL_VERDICT
        const evaluation = yield* policy.evaluateToolCall({
          agent_id: DEFAULT_AGENT_ID,
          tool_id: call.tool_id,
          tool_match_target: call.tool_match_target,
          url: call.url
        })
        return { decision: evaluation.decision, rules: evaluation.rules }
      })

      return Playbooks.of({
        list: Effect.map(Ref.get(state), (s) => ({
          playbooks: [...s.playbooks.values()].map(summaryOf).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
          errors: s.errors
        })),
        get: Effect.fn("Playbooks.get")(function*(id: string) {
          const p = yield* find(id)
          return { ...summaryOf(p), manifest: p.manifest, steps: p.steps }
        }),
        compile: Effect.fn("Playbooks.compile")(function*(id: string) {
          return (yield* find(id)).steps
        }),
        dryRun: Effect.fn("Playbooks.dryRun")(function*(id: string) {
          const p = yield* find(id)
          const steps: Array<PlaybookDryRunStep> = []
          for (let i = 0; i < p.steps.length; i++) {
            steps.push({ step_id: p.step_ids[i]!, action: p.steps[i]!, policy: yield* judge(p.steps[i]!) })
          }
          return { playbook_id: p.manifest.id, steps }
        }),
        execute: Effect.fn("Playbooks.execute")(function*(id: string, request: PlaybookExecuteRequest, options?: RunOptions) {
          const p = yield* find(id)
          const run = yield* workflow.run(
            {
              key: request.key ?? defaultPlaybookKey(p.manifest.id),
              lane: request.lane ?? DEFAULT_LANE,
              ...(request.plan_id === undefined ? {} : { plan_id: request.plan_id }),
              ...(request.request_id === undefined ? {} : { request_id: request.request_id }),
              ...(request.budgets === undefined ? {} : { budgets: request.budgets }),
              steps: p.steps
            },
            undefined,
            {
              trigger_kind: options?.trigger_kind ?? "manual",
              trigger: { ...options?.trigger, playbook_id: p.manifest.id, playbook_version: p.manifest.version }
            }
          )
          return { ...run, playbook_id: p.manifest.id }
        }),
        reload
      })
    })
  )

  /** {@link Playbooks.layerNoDeps} over the gateway's workflow subsystem (built once per graph), policy bundle and Node file system. Needs `GatewayConfig` and a `SqlClient`. */
  static readonly layer = Playbooks.layerNoDeps.pipe(
    Layer.provide(WorkflowLive),
    Layer.provide(PolicyBundle.layer),
    Layer.provide(NodeServices.layer)
  )
}

/**
 * The playbooks subsystem, wired for the gateway.
 * @deprecated use {@link Playbooks.layer} (docs/architecture.md "Conventions").
 */
export const PlaybooksLive = Playbooks.layer
