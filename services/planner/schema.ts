/**
 * Wire contract of the plan runner (`POST /plan`, gateway-api.md "Plan
 * runner"; reference §6.1, §6.2) and the `ActionPrimitive` the workflow engine
 * reuses. docs/planner.md describes every field and the decisions behind it.
 *
 * Like every JSON body, unknown keys are ignored (stripped) and every string a
 * caller sends is bounded, since requests are stored.
 *
 * @module
 */
import { Effect, Schema } from "effect"
import { bounded, LARGE_JSON } from "../shared/json.ts"
import { nonEmptyText } from "../shared/schemas.ts"

// ---------------------------------------------------------------------------
// ActionPrimitive (reference §6.2)
// ---------------------------------------------------------------------------

/** Every kind of action a plan step can be. */
export const ACTION_PRIMITIVE_KINDS = [
  "Research",
  "Decide",
  "Llm",
  "Web",
  "Android",
  "Desktop",
  "CLI",
  "Http",
  "Mcp",
  "Node",
  "Message",
  "Pay",
  "Store",
  "Watch",
  "Confirm"
] as const

/** The kind of one step. */
export const ActionPrimitiveKind = Schema.Literals(ACTION_PRIMITIVE_KINDS).annotate({
  title: "Action kind",
  expected: `one of ${ACTION_PRIMITIVE_KINDS.join(", ")}`
})
export type ActionPrimitiveKind = typeof ActionPrimitiveKind.Type

/** Kinds that only think or ask (reference §6.2: every other kind is state-changing). */
const NON_STATE_CHANGING_KINDS: ReadonlyArray<ActionPrimitiveKind> = ["Research", "Decide", "Llm", "Confirm"]

/** Kinds that change the world: the workflow engine needs a postcondition to verify each of them. */
export const STATE_CHANGING_KINDS: ReadonlySet<ActionPrimitiveKind> = new Set<ActionPrimitiveKind>(
  ACTION_PRIMITIVE_KINDS.filter((kind) => !NON_STATE_CHANGING_KINDS.includes(kind))
)

/** True when a step of this kind changes state (and so needs a postcondition). */
export const isStateChanging = (kind: ActionPrimitiveKind): boolean => STATE_CHANGING_KINDS.has(kind)

/** The node capability that executes a kind, for the kinds run by a capability provider. */
export const CAPABILITY_BY_KIND: Readonly<Partial<Record<ActionPrimitiveKind, string>>> = {
  Web: "playwright",
  Android: "android",
  Desktop: "desktop",
  CLI: "cli",
  Http: "http"
}

/** One step of a plan or workflow: `{type, args (default {}), postcondition?, idempotency_key?}`. */
export const ActionPrimitive = Schema.Struct({
  type: ActionPrimitiveKind,
  args: bounded(Schema.Record(Schema.String, Schema.Unknown), LARGE_JSON).pipe(
    Schema.withDecodingDefaultKey(Effect.succeed({}))
  ).annotateKey({ description: "Arguments of the action. Defaults to {}." }),
  postcondition: Schema.optionalKey(bounded(Schema.Unknown, LARGE_JSON)).annotateKey({
    description: "What must hold after the step ran (state-changing kinds carry one)."
  }),
  idempotency_key: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(256))).annotateKey({
    description: "Key that lets the executor run a state-changing step at most once."
  })
}).annotate({
  identifier: "ActionPrimitive",
  title: "Action primitive",
  description: "One step of a plan or a workflow run."
})
export type ActionPrimitive = typeof ActionPrimitive.Type

// ---------------------------------------------------------------------------
// PlanRequest
// ---------------------------------------------------------------------------

/** Longest `request_id`, in characters. */
export const MAX_REQUEST_ID_LENGTH = 128
/** Most tags on one request, and the longest tag. */
export const MAX_TAGS = 64
export const MAX_TAG_LENGTH = 256
/** Longest message text, in characters. */
export const MAX_TEXT_LENGTH = 65_536

// The last check's `expected` also words a type mismatch, so it names the type too.
const text = (max: number) =>
  Schema.String.check(Schema.isMaxLength(max, { expected: `a string of at most ${max} characters` }))

/** The message that triggered the plan (its other fields are ignored). */
export const PlanTriggerMessage = Schema.Struct({
  text: text(MAX_TEXT_LENGTH).annotateKey({ description: "The message text the plan is for." })
})

/** Where the request came from: a normalized thread message. */
export const PlanTrigger = Schema.Struct({
  channel: nonEmptyText(128).annotateKey({ description: "Channel the message arrived on (e.g. telegram)." }),
  thread_id: nonEmptyText(256).annotateKey({ description: "Thread of the message; the reply goes there." }),
  message: PlanTriggerMessage
}).annotate({ identifier: "PlanTrigger", title: "Plan trigger" })
export type PlanTrigger = typeof PlanTrigger.Type

/** `POST /plan` body. */
export const PlanRequest = Schema.Struct({
  request_id: nonEmptyText(MAX_REQUEST_ID_LENGTH).check(
    Schema.makeFilter((id) => id.trim() === "" ? "must not be empty" : undefined, { expected: "a request_id that is not blank" })
  ).annotateKey({
    description:
      "Caller's idempotency key: the same request_id always answers the same stored plan (a different body is 409)."
  }),
  trigger: PlanTrigger,
  locale: Schema.optionalKey(text(64)),
  timezone: Schema.optionalKey(text(64)),
  tags: Schema.Array(nonEmptyText(MAX_TAG_LENGTH)).check(
    Schema.isMaxLength(MAX_TAGS, { expected: `an array of at most ${MAX_TAGS} tags` })
  ).pipe(Schema.withDecodingDefaultKey(Effect.succeed([]))).annotateKey({
    description:
      "spend:<amount_minor>:<CUR>[:merchant], pii:<category>|none, legal:<flag>|none, connector:mcp://<name>; " +
      "other tags are kept but not interpreted. Defaults to []."
  }),
  execute: Schema.optionalKey(Schema.Boolean).annotateKey({
    description: "true: run the plan's steps (a success at once, an escalation once its approval is approved); " +
      "the response then carries run_id when the run has started. Absent = false."
  })
}).annotate({
  identifier: "PlanRequest",
  title: "Plan request",
  expected: "a JSON object",
  examples: [{
    request_id: "req-42",
    trigger: { channel: "telegram", thread_id: "t-1", message: { text: "Order the usual flowers" } },
    tags: ["spend:4500:EUR:Flower_Shop", "pii:basic_contact", "legal:none"]
  }]
})
/** A decoded plan request (`tags` defaulted). */
export type PlanRequest = typeof PlanRequest.Type
/** A plan request as sent. */
export type PlanRequestEncoded = typeof PlanRequest.Encoded

// ---------------------------------------------------------------------------
// PlanResponse
// ---------------------------------------------------------------------------

/** The three outcomes of a plan. */
export const PlanStatus = Schema.Literals(["success", "escalate", "failure"])
export type PlanStatus = typeof PlanStatus.Type

const planFields = {
  plan_id: Schema.String.annotateKey({ description: "plan-<32 lowercase hex>." }),
  request_id: Schema.String,
  created_at: Schema.String.annotateKey({ description: "ISO-8601 UTC, millisecond precision." }),
  trace_id: Schema.String.annotateKey({ description: "A UUID identifying this planning run in logs." })
}

/** The run of a plan asked to run (`execute: true`), once it has started. */
const runId = Schema.optionalKey(Schema.String).annotateKey({
  description: "The workflow run of a plan sent with execute: true, once it started (GET /workflow/runs/:run_id)."
})

/** A plan that may run as is. */
export const PlanSuccess = Schema.Struct({
  ...planFields,
  status: Schema.Literal("success"),
  steps: Schema.Array(ActionPrimitive),
  summary: Schema.Struct({ synopsis: Schema.String }),
  run_id: runId
}).annotate({ identifier: "PlanSuccess" })

/** Why and where a plan waits for a human: a pending approval was created. */
export const PlanEscalation = Schema.Struct({
  step_index: Schema.Int.annotateKey({ description: "The Pay step when the spend rule escalates a spend tag, else 0." }),
  action: ActionPrimitive.annotateKey({ description: "A Confirm action: {type: Confirm, args: {prompt, kind, rules}}." }),
  rationale: Schema.String.annotateKey({ description: "`<rule>: <detail>` of each escalating rule, one per line." }),
  expires_at: Schema.NullOr(Schema.String).annotateKey({ description: "When the approval expires (ISO-8601 UTC)." }),
  approval_id: Schema.Int.annotateKey({ description: "The pending approval (GET /approvals/:id)." })
}).annotate({ identifier: "PlanEscalation" })
export type PlanEscalation = typeof PlanEscalation.Type

/** A plan that needs approval first. */
export const PlanEscalate = Schema.Struct({
  ...planFields,
  status: Schema.Literal("escalate"),
  escalation: PlanEscalation,
  run_id: runId
}).annotate({ identifier: "PlanEscalate" })

/** Why a plan failed. */
export const PlanError = Schema.Struct({
  code: Schema.Literals(["policy_denied", "invalid_request", "internal"]),
  message: Schema.String,
  detail: Schema.optionalKey(Schema.String),
  retryable: Schema.Boolean
}).annotate({ identifier: "PlanError" })
export type PlanError = typeof PlanError.Type

/** A plan that must not run. */
export const PlanFailure = Schema.Struct({
  ...planFields,
  status: Schema.Literal("failure"),
  error: PlanError
}).annotate({ identifier: "PlanFailure" })

/** `POST /plan` 200 body: one of success, escalate or failure. */
export const PlanResponse = Schema.Union([PlanSuccess, PlanEscalate, PlanFailure]).annotate({
  identifier: "PlanResponse",
  title: "Plan response"
})
export type PlanResponse = typeof PlanResponse.Type

// ---------------------------------------------------------------------------
// Errors of the route
// ---------------------------------------------------------------------------

/** 409 `conflict`: the request_id was already used for a different request. */
export class PlanConflict extends Schema.TaggedError<PlanConflict>()(
  "PlanConflict",
  { message: Schema.String },
  { httpApiStatus: 409, errorCode: "conflict" }
) {}
