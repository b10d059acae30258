/**
 * Wire schemas of the routing configuration (gateway-api.md "Routing
 * configuration"; reference §7.2; docs/routing.md). A configuration says
 * which agent answers a messenger thread; every change is a new revision.
 *
 * `RoutingConfig` is strict ({@link StrictStruct}): an unknown key at any
 * depth is a 400 naming it (`config.messenger.bogus: unexpected field`),
 * unlike the gateway's other bodies, whose unknown keys are ignored.
 *
 * @module
 */
import { Schema } from "effect"
import { AgentId } from "../shared/agent.ts"
import { describeInput } from "../shared/decode.ts"
import { StrictStruct } from "../shared/schemas.ts"

/** Longest thread id, in characters. */
export const MAX_THREAD_ID_LENGTH = 256
/** Most entries in `messenger.threads`. */
export const MAX_THREADS = 10_000
/** Longest `reason`, in characters. */
export const MAX_REASON_LENGTH = 1024

const THREAD_ID = /^[^\u0000-\u001f\u007f]{1,256}$/u

/**
 * Whether `key` is a messenger thread id: 1–256 characters, no control
 * characters, not `__proto__` (it could not be a plain object key).
 */
export const isThreadId = (key: string): boolean => THREAD_ID.test(key) && key !== "__proto__"

/**
 * thread id → agent id, at most {@link MAX_THREADS} entries. Thread ids are
 * checked on the whole map so that a bad one is named in the message (as a
 * key of the map, it would otherwise only be an "unexpected field").
 */
export const ThreadAgents = Schema.Record(Schema.String, AgentId).check(
  Schema.makeFilter((threads: Readonly<Record<string, string>>) => {
    const bad = Object.keys(threads).find((key) => !isThreadId(key))
    return bad === undefined ||
      `expected thread ids of 1 to ${MAX_THREAD_ID_LENGTH} characters without control characters, got ${describeInput(bad)}`
  }),
  Schema.isMaxProperties(MAX_THREADS, { expected: `at most ${MAX_THREADS} threads` })
)

/** Most entries in `messenger.operators`. */
export const MAX_OPERATORS = 1_000

/** Messenger chat ids whose members may resolve approvals with the chat's buttons (at most {@link MAX_OPERATORS}). */
export const OperatorChats = Schema.Array(
  Schema.String.check(Schema.makeFilter((id: string) =>
    isThreadId(id) || `expected a chat id of 1 to ${MAX_THREAD_ID_LENGTH} characters without control characters, got ${describeInput(id)}`
  ))
).check(Schema.isMaxLength(MAX_OPERATORS, { expected: `at most ${MAX_OPERATORS} operator chats` }))

/** Where messenger updates go: a default agent and per-thread agents; and which chats are operators. */
export const MessengerRouting = StrictStruct({
  /** The agent of threads without their own entry (absent: `default`). */
  default_agent_id: Schema.optionalKey(AgentId),
  /** thread id → agent id. */
  threads: Schema.optionalKey(ThreadAgents),
  /** Chat ids allowed to approve or deny with the approval buttons sent to a chat (absent: none). */
  operators: Schema.optionalKey(OperatorChats)
})

/**
 * `RoutingConfig {v: 1, messenger?: {default_agent_id?, threads?, operators?}}`, strict
 * (unknown keys are errors).
 */
export const RoutingConfig = StrictStruct({
  v: Schema.Literal(1),
  messenger: Schema.optionalKey(MessengerRouting)
}).annotate({
  identifier: "RoutingConfig",
  description: "Routing configuration, version 1. Unknown keys are rejected at every depth."
})
export type RoutingConfig = typeof RoutingConfig.Type

/** The configuration in force when no revision exists. */
export const EMPTY_ROUTING_CONFIG: RoutingConfig = { v: 1 }

/**
 * Who made a change: `{kind: "admin"}`, `{kind: "device", token_id,
 * device_id}` (a device token's id, never the token), `{kind: "node",
 * node_id}`, or `{kind: "anonymous"}` (no principal: gateway auth off, or an
 * in-process caller).
 */
export const RoutingActor = Schema.StructWithRest(Schema.Struct({ kind: Schema.String }), [
  Schema.Record(Schema.String, Schema.String)
]).annotate({ identifier: "RoutingActor" })
export type RoutingActor = typeof RoutingActor.Type

const Revision = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1, { expected: "a positive integer" }))

const Reason = Schema.String.check(
  Schema.isMaxLength(MAX_REASON_LENGTH, { expected: `at most ${MAX_REASON_LENGTH} characters` })
)

/**
 * One revision as the routes answer it. `GET /routing/config` with no
 * revision stored answers `{revision: 0, config: {v: 1}}`; absent values are
 * left out (never `null`).
 */
export const RoutingConfigRecord = Schema.Struct({
  revision: Schema.Int,
  config: RoutingConfig,
  /** ISO 8601 UTC. */
  created_at: Schema.optionalKey(Schema.String),
  created_by: Schema.optionalKey(RoutingActor),
  reason: Schema.optionalKey(Schema.String),
  /** Set on a revision made by `POST /routing/config/revert`: the revision it copies. */
  reverted_from_revision: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "RoutingConfigRecord" })
export type RoutingConfigRecord = typeof RoutingConfigRecord.Type

/** Body of `PUT /routing/config`. */
export const RoutingConfigUpdateRequest = Schema.Struct({
  config: RoutingConfig,
  reason: Schema.optionalKey(Reason)
}).annotate({ identifier: "RoutingConfigUpdateRequest" })
export type RoutingConfigUpdateRequest = typeof RoutingConfigUpdateRequest.Type

/** Body of `POST /routing/config/revert`: the revision to copy (a positive integer). */
export const RoutingConfigRevertRequest = Schema.Struct({
  revision: Revision,
  reason: Schema.optionalKey(Reason)
}).annotate({ identifier: "RoutingConfigRevertRequest" })
export type RoutingConfigRevertRequest = typeof RoutingConfigRevertRequest.Type
