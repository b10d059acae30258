/**
 * The gateway's `StepExecutor` (issue 12 "Executors", issue 21 §5;
 * docs/workflow-executors.md): the executor registry (registry.ts) over
 * {@link EXECUTORS}.
 *
 * | Step | Executor |
 * |---|---|
 * | `Confirm` | none: the engine pauses for an approval; asked anyway → `unsupported_action` |
 * | any step with `args.capability`, `Web`, `Android`, `Desktop`, `Node` | node (`NodeDispatch`) |
 * | `Http` | Http (Node `http`/`https`, pinned to checked addresses) |
 * | `CLI` | CLI (in the `CliSandbox` chosen at start; only with `SVC_CLI_ENABLED=1`) |
 * | `Research`, `Decide`, `Llm`, `Mcp`, `Message`, `Pay`, `Store`, `Watch` | none → `unsupported_action` naming the kind |
 *
 * @module
 */
import type { ActionPrimitiveKind } from "../../planner/schema.ts"
import { ACTION_PRIMITIVE_KINDS } from "../../planner/schema.ts"
import { CliExecutor } from "./CliExecutor.ts"
import { HttpExecutor } from "./HttpExecutor.ts"
import { NodeExecutor } from "./NodeExecutor.ts"
import { kindsOf, stepExecutorLayer } from "./registry.ts"

/** The gateway's executors: a new one (an `Agent`, an `Llm`) is one more entry. */
export const EXECUTORS = [HttpExecutor, CliExecutor, NodeExecutor] as const

/** Kinds with an executor (besides any step with `args.capability`, which runs on a node). */
export const EXECUTED_KINDS: ReadonlyArray<ActionPrimitiveKind> = kindsOf(EXECUTORS)

/** Kinds no executor runs (a step of one fails with `unsupported_action`, unless it has `args.capability`). */
export const UNSUPPORTED_KINDS: ReadonlyArray<ActionPrimitiveKind> = ACTION_PRIMITIVE_KINDS.filter((k) =>
  !EXECUTED_KINDS.includes(k)
)

/**
 * `StepExecutor` with {@link EXECUTORS}. Needs `HttpStepContext`, a `Dns`,
 * `NodeDispatch` and the `CliSandbox` chosen at start (`CliSandbox.layer`);
 * the Http targets that get trace headers are `HttpTraceTargets` (none
 * unless provided).
 */
export const StepExecutorLive = stepExecutorLayer(EXECUTORS)
