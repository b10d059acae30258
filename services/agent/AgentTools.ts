/**
 * The agent's tools under the policy gate (issue 25 §2 "Tools"; docs/agent.md
 * "Tools and policy"; tools.ts has the table of tools and policy tool ids).
 *
 * - **Offered**: a tool whose policy tool id the agent's effective bundle
 *   denies outright (evaluated without a target) is not offered to the model
 *   (judged in process, without reading the overrides: none can lift a deny).
 * - **Every call** goes through `PolicyBundle.evaluateToolCall` first (the
 *   agent's overrides included): `deny` → a tool failure the model sees
 *   (`policy_denied`); `require_approval` → an approval of kind `tool_call`
 *   (context: the tool, its policy tool id, the arguments, the match target,
 *   the session, and the policy's suggested overrides so "approve always"
 *   works), recorded in `agent_tool_calls`, and the turn ends saying what
 *   waits; `allow` → the tool runs.
 * - **Approved later**: the next turn of the session ({@link AgentTools.settle})
 *   runs each call whose approval was approved (without asking the policy
 *   again) and puts its result into that turn's prompt; denied, expired or
 *   cancelled ones are reported to the model as such.
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import type { Tool } from "effect/ai"
import { FetchHttpClient, HttpClient, HttpClientRequest } from "effect/http"
import { Approvals } from "../approvals/Approvals.ts"
import { Memory } from "../memory/Memory.ts"
import { evaluateAgainstBundle } from "../policy-bundle/evaluate.ts"
import { PolicyBundle } from "../policy-bundle/PolicyBundle.ts"
import { isoTime } from "../shared/time.ts"
import { Work } from "../work/Work.ts"
import type { WorkflowStep } from "../workflow/runs/schema.ts"
import { Workflow } from "../workflow/Workflow.ts"
import { AgentContributions, type ContributedTool, type ToolContext, type ToolFailure } from "./contributions.ts"
import { ToolCallsRepo } from "./ToolCallsRepo.ts"
import { AGENT_TOOLS, type AgentToolName, capResult, matchTargetOf } from "./tools.ts"

export type { ToolContext, ToolFailure } from "./contributions.ts"

/** A tool offered to a turn's model: the tool and its policy tool id (built-in or contributed). */
export interface OfferedTool {
  readonly tool: Tool.Any
  readonly toolId: string
}

/** One call a turn made, for its context report. */
export interface ToolCallRecord {
  readonly tool: string
  readonly tool_id: string
  readonly decision: string
  readonly outcome: string
}

/** What a turn's tool calls did: the log, the approvals they wait on, whether memory was written. */
export interface TurnToolState {
  readonly calls: Array<ToolCallRecord>
  readonly waiting: Array<{ readonly approval_id: number; readonly tool: string; readonly match_target: string }>
  memoryWritten: boolean
}

/** The result of an approved call run by a later turn, or why it did not run. */
export interface SettledCall {
  readonly approval_id: number
  readonly tool: string
  readonly outcome: "approved" | "denied" | "expired" | "cancelled"
  readonly result?: unknown
}

/** The tenant of work items an agent creates (the board's WorkScope). */
export const AGENT_TENANT_ID = "default"

/** How long `http_fetch` waits for an answer. */
export const HTTP_FETCH_TIMEOUT = "15 seconds"

const failure = (error: string, message: string): ToolFailure => ({ error, message })

/** A service error as a tool failure: its wire code (from the tag) and message. */
const asToolFailure = (error: unknown): ToolFailure => {
  const tagged = error as { readonly _tag?: string; readonly message?: string }
  const code = (tagged._tag ?? "error").replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase()
  return failure(code, tagged.message ?? String(error))
}

/** The agent's tools: which are offered, their handlers for one turn, and settling approved calls. */
export class AgentTools extends Context.Service<AgentTools, {
  /**
   * The tools offered to the model for this agent (those its bundle does not deny outright): the built-in ones, then
   * those contributed by other subsystems (`AgentContributions`: plugins, MCP servers, paired nodes).
   */
  readonly offered: (agentId: string, workspaceId: string) => Effect.Effect<ReadonlyArray<OfferedTool>>
  /** Calls tool `name` (built-in or contributed) for `context` through the policy gate, recording into `state`. */
  readonly call: (
    name: string,
    args: Record<string, unknown>,
    context: ToolContext,
    state: TurnToolState
  ) => Effect.Effect<unknown, ToolFailure>
  /** Runs the session's approved waiting calls and reports the others (once each). */
  readonly settle: (context: ToolContext, state: TurnToolState) => Effect.Effect<ReadonlyArray<SettledCall>>
}>()("svc-gateway/agent/AgentTools") {
  /** Needs `PolicyBundle`, `Approvals`, `Memory`, `Work`, `Workflow`, {@link AgentContributions} and {@link ToolCallsRepo}. */
  static readonly layerNoDeps = Layer.effect(
    AgentTools,
    Effect.gen(function*() {
      const policy = yield* PolicyBundle
      const approvals = yield* Approvals
      const memory = yield* Memory
      const work = yield* Work
      const workflow = yield* Workflow
      const calls = yield* ToolCallsRepo
      const rawHttp = yield* HttpClient.HttpClient
      const contributions = yield* AgentContributions
      const contributed = (name: string): ContributedTool | undefined => contributions.tools().find((entry) => entry.tool.name === name)
      const builtin = (name: string) => AGENT_TOOLS.find((entry) => entry.tool.name === name)

      /** Runs a tool, built-in or contributed (the policy already said yes). */
      const run = (name: string, args: Record<string, unknown>, context: ToolContext, state: TurnToolState): Effect.Effect<unknown, ToolFailure> => {
        if (builtin(name) === undefined) {
          const entry = contributed(name)
          return entry === undefined
            ? Effect.fail(failure("tool_unavailable", `tool ${name} is no longer available (its source was removed or is down)`))
            : entry.run(args, context)
        }
        return runBuiltin(name as AgentToolName, args, context, state)
      }
      const runBuiltin = (name: AgentToolName, args: Record<string, unknown>, context: ToolContext, state: TurnToolState): Effect.Effect<unknown, ToolFailure> => {
        const scope = { tenant_id: AGENT_TENANT_ID, agent_id: context.agentId, workspace_id: context.workspaceId }
        switch (name) {
          case "memory_search":
            return memory.search({
              query: String(args.query ?? ""),
              filter: { agent_id: context.agentId },
              limit: Math.min(20, Math.max(1, Number(args.limit ?? 5)))
            }).pipe(Effect.map((result) => ({ hits: result.hits })), Effect.mapError(asToolFailure))
          case "memory_create":
            return memory.create({
              kind: "note",
              agent_id: context.agentId,
              body_md: String(args.body_md ?? ""),
              ...(typeof args.title === "string" ? { title: args.title } : {}),
              ...(Array.isArray(args.tags) ? { tags: args.tags.map(String) } : {}),
              provenance: { source_kind: "tool", session_id: context.sessionId }
            } as Parameters<typeof memory.create>[0]).pipe(
              Effect.tap(() => Effect.sync(() => (state.memoryWritten = true))),
              Effect.map(({ item }) => ({ memory_item_id: item.memory_item_id }))
            )
          case "work_create":
            return work.create({
              ...scope,
              item: {
                kind: args.kind === "initiative" ? "initiative" : "action",
                title: String(args.title ?? ""),
                ...(typeof args.priority === "number" ? { priority: args.priority } : {})
              }
            }, context.sessionKey).pipe(Effect.map(({ item }) => ({ item })), Effect.mapError(asToolFailure))
          case "work_transition":
            return work.transition({
              ...scope,
              work_item_id: String(args.work_item_id ?? ""),
              status: args.status as "doing",
              ...(typeof args.reason === "string" ? { reason: args.reason } : {})
            }).pipe(Effect.map(({ item }) => ({ item })), Effect.mapError(asToolFailure))
          case "workflow_run":
            return workflow.run({
              key: `agent:${context.agentId}:main`,
              lane: "main",
              steps: args.steps as ReadonlyArray<WorkflowStep>
            }, undefined, { trigger: { agent_session_id: context.sessionId } }).pipe(
              Effect.map((started) => ({ run_id: started.run_id, plan_id: started.plan_id, key: started.key, steps_count: started.steps_count }))
            )
          case "http_fetch": {
            const url = String(args.url ?? "")
            if (!/^https?:\/\//i.test(url)) return Effect.fail(failure("invalid_request", "url must be an http:// or https:// URL"))
            return rawHttp.execute(HttpClientRequest.get(url)).pipe(
              Effect.flatMap((response) =>
                Effect.map(response.text, (body) => ({
                  status: response.status,
                  content_type: response.headers["content-type"] ?? null,
                  body
                }))
              ),
              Effect.timeout(HTTP_FETCH_TIMEOUT),
              Effect.mapError((error) => failure("fetch_failed", `GET ${url} failed: ${(error as { message?: string }).message ?? String(error)}`))
            )
          }
        }
      }

      // Offered = not denied outright by the effective bundle's tool rule. The agent's overrides are not read: an
      // override never lifts a deny (reference §1.4), so they cannot change which tools are offered; every call
      // is still evaluated with them (`call`).
      const { bundle } = yield* policy.effective
      const offered = Effect.fn("AgentTools.offered")((agentId: string, workspaceId: string) =>
        Effect.sync(() =>
          [...AGENT_TOOLS, ...contributions.tools()].filter((entry) =>
            evaluateAgainstBundle(bundle, { agent_id: agentId, workspace_id: workspaceId, tool_id: entry.toolId, tool_match_target: "" })
              .decision !== "deny"
          )
        ))

      const call = (name: string, args: Record<string, unknown>, context: ToolContext, state: TurnToolState) =>
        Effect.gen(function*() {
          const external = builtin(name) === undefined ? contributed(name) : undefined
          if (builtin(name) === undefined && external === undefined) {
            return yield* Effect.fail(failure("tool_unavailable", `tool ${name} is not available to this agent`))
          }
          const toolId = external?.toolId ?? builtin(name)!.toolId
          const target = external !== undefined ? external.matchTarget(args) : matchTargetOf(name, args)
          const evaluation = yield* policy.evaluateToolCall({
            agent_id: context.agentId,
            workspace_id: context.workspaceId,
            tool_id: toolId,
            tool_match_target: target,
            ...(name === "http_fetch" ? { url: target } : {})
          })
          const record = (decision: string, outcome: string) => Effect.sync(() => state.calls.push({ tool: name, tool_id: toolId, decision, outcome }))
          if (evaluation.decision === "deny") {
            yield* record("deny", "policy_denied")
            return yield* Effect.fail(failure("policy_denied", `${toolId} on "${target}" is denied by the policy`))
          }
          if (evaluation.decision === "require_approval") {
            const approval = yield* approvals.create({
              kind: "tool_call",
              plan_id: `agent-session-${context.sessionId}`,
              step_index: state.waiting.length,
              prompt: `Agent ${context.agentId} wants to call ${name} (${toolId}) on "${target}"`,
              context: {
                tool_call: { tool: name, tool_id: toolId, arguments: args, match_target: target, session_id: context.sessionId },
                policy: { agent_id: context.agentId, policy_snapshot_id: evaluation.policy_snapshot_id, suggested_overrides: evaluation.suggested_overrides }
              },
              scope: { key: context.sessionKey, lane: "main" }
            })
            yield* calls.insert({
              approval_id: approval.id,
              session_id: context.sessionId,
              agent_id: context.agentId,
              tool: name,
              tool_id: toolId,
              arguments: args,
              match_target: target,
              status: "pending",
              outcome: null,
              created_at: isoTime(yield* Clock.currentTimeMillis),
              consumed_at: null
            })
            state.waiting.push({ approval_id: approval.id, tool: name, match_target: target })
            yield* record("require_approval", `waiting for approval ${approval.id}`)
            return { status: "pending_approval", approval_id: approval.id, message: "An operator must approve this call; it runs when approved." }
          }
          const result = yield* Effect.tapError(run(name, args, context, state), (error) => record("allow", error.error))
          yield* record("allow", "ok")
          return capResult(result)
        })

      const settle = Effect.fn("AgentTools.settle")(function*(context: ToolContext, state: TurnToolState) {
        const settled: Array<SettledCall> = []
        for (const row of yield* calls.pending(context.sessionId)) {
          const approval = yield* Effect.orElseSucceed(approvals.get(row.approval_id), () => undefined)
          const status = approval?.status ?? "cancelled"
          if (status === "pending") continue
          const at = isoTime(yield* Clock.currentTimeMillis)
          if (!(yield* calls.consume(row.approval_id, status, at))) continue
          if (status !== "approved") {
            settled.push({ approval_id: row.approval_id, tool: row.tool, outcome: status })
            state.calls.push({ tool: row.tool, tool_id: row.tool_id, decision: "require_approval", outcome: status })
            continue
          }
          const result = yield* Effect.result(run(row.tool, row.arguments, context, state))
          const value = result._tag === "Success" ? capResult(result.success) : { error: result.failure }
          state.calls.push({ tool: row.tool, tool_id: row.tool_id, decision: "approved", outcome: result._tag === "Success" ? "ok" : result.failure.error })
          settled.push({ approval_id: row.approval_id, tool: row.tool, outcome: "approved", result: value })
        }
        return settled
      })

      return AgentTools.of({ offered, call, settle })
    })
  )

  /** Wired: the waiting calls' storage and a fetch `HttpClient`; needs the other services from the root. */
  static readonly layer = AgentTools.layerNoDeps.pipe(
    Layer.provide(ToolCallsRepo.layer),
    Layer.provide(FetchHttpClient.layer)
  )
}
