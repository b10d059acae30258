/**
 * Playbooks (issue 13 §1; reference §6.6; gateway-api.md "Playbooks";
 * docs/playbooks.md): the manifest of a `playbook.yml` file, decoded
 * strictly (unknown keys are errors), and the wire shapes of the
 * `/playbooks` routes.
 *
 * @module
 */
import { Schema, SchemaTransformation } from "effect"
import { BundleDecision } from "../policy-bundle/schema.ts"
import { bounded, SMALL_JSON } from "../shared/json.ts"
import { WorkflowKey, WorkflowLane } from "../workflow/runs/keys.ts"
import { WorkflowRunRequest, WorkflowStep } from "../workflow/runs/schema.ts"
import { nonEmptyText as text } from "../shared/schemas.ts"

/**
 * Longest playbook id (119 characters): the default workflow key of an
 * execution is `cron:playbook-<id>`, and a key part holds at most 128.
 */
export const MAX_PLAYBOOK_ID_LENGTH = 119
/** Longest step id. */
export const MAX_STEP_ID_LENGTH = 64
/** Most steps in one playbook (its compiled steps, Confirm steps included, are bounded by the engine's 256 too). */
export const MAX_PLAYBOOK_STEPS = 128

const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/

const identifier = (max: number, what: string) =>
  Schema.String.check(
    Schema.isMinLength(1, { expected: `a ${what} (1 to ${max} letters, digits, _, . or -, starting with a letter or digit)` }),
    Schema.isMaxLength(max, { expected: `a ${what} of at most ${max} characters` }),
    Schema.isPattern(ID_PATTERN, {
      expected: `a ${what} (1 to ${max} letters, digits, _, . or -, starting with a letter or digit)`
    })
  )

/** A playbook id: 1–119 of `[A-Za-z0-9_.-]`, starting with a letter or digit (no `:`, it goes into workflow keys). */
export const PlaybookId = identifier(MAX_PLAYBOOK_ID_LENGTH, "playbook id").annotate({ identifier: "PlaybookId" })

/** A step id: 1–64 of `[A-Za-z0-9_.-]`, starting with a letter or digit. */
export const PlaybookStepId = identifier(MAX_STEP_ID_LENGTH, "step id")

/** A version: a string, or a number (YAML `version: 1`) kept as its decimal string. */
const Version = Schema.Union([text(64), Schema.Finite]).pipe(
  Schema.decodeTo(
    Schema.String,
    SchemaTransformation.transform<string, string | number>({ decode: (v) => String(v), encode: (v) => v })
  )
).annotate({ expected: "a version (a string or a number)" })

/** A host of `allowed_domains`: a DNS name or IPv4 address, optionally written `*.example.com`. */
const Domain = Schema.String.check(
  Schema.isMaxLength(253, { expected: "a host name of at most 253 characters" }),
  Schema.isPattern(/^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.?$/, {
    expected: "a host name such as example.com (no scheme, port or path)"
  })
)

/** The output a step produces: `text` (default) or `json`, optionally with a JSON schema (kept, not enforced). */
export const PlaybookStepOutput = Schema.Union([
  Schema.Literals(["text", "json"]),
  Schema.Struct({
    type: Schema.Literals(["text", "json"]),
    schema: Schema.optionalKey(bounded(Schema.Unknown, SMALL_JSON))
  })
]).annotate({ expected: "text, json or {type: text|json, schema?}" })
export type PlaybookStepOutput = typeof PlaybookStepOutput.Type

/** The `llm` block of an `llm` step. */
export const PlaybookLlm = Schema.Struct({
  model: Schema.String.check(
    Schema.isMaxLength(256, { expected: "provider/model of at most 256 characters" }),
    Schema.isPattern(/^[^/\s]+\/\S+$/, { expected: "provider/model (e.g. openai/gpt-4.1)" })
  ),
  prompt: text(65_536),
  max_tool_calls: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }, { expected: "an integer from 0 to 100" }))
  ),
  tools: Schema.optionalKey(Schema.Struct({
    allow: Schema.Array(text(256)).check(Schema.isMaxLength(256, { expected: "an array of at most 256 tool ids" }))
  }))
})
export type PlaybookLlm = typeof PlaybookLlm.Type

/** One step of a playbook (reference §6.6). */
export const PlaybookStep = Schema.Struct({
  id: PlaybookStepId,
  name: Schema.optionalKey(text(256)),
  command: text(8192),
  stdin: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(65_536, { expected: "a string of at most 65536 characters" }))),
  condition: Schema.optionalKey(text(1024)),
  approval: Schema.optionalKey(Schema.Literal("required")),
  output: Schema.optionalKey(PlaybookStepOutput),
  llm: Schema.optionalKey(PlaybookLlm),
  postcondition: Schema.optionalKey(bounded(Schema.Record(Schema.String, Schema.Unknown), SMALL_JSON)),
  rollback_hint: Schema.optionalKey(text(4096))
}).annotate({ identifier: "PlaybookStep", expected: "a step object" })
export type PlaybookStep = typeof PlaybookStep.Type

/** A `playbook.yml` manifest (reference §6.6), decoded strictly. */
export const PlaybookManifest = Schema.Struct({
  id: PlaybookId,
  name: text(256),
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(4096, { expected: "a string of at most 4096 characters" }))),
  version: Version,
  args: Schema.optionalKey(bounded(Schema.Record(Schema.String, Schema.Unknown), SMALL_JSON)),
  steps: Schema.Array(PlaybookStep).check(
    Schema.isMinLength(1, { expected: "at least one step" }),
    Schema.isMaxLength(MAX_PLAYBOOK_STEPS, { expected: `an array of 1 to ${MAX_PLAYBOOK_STEPS} steps` })
  ),
  allowed_domains: Schema.optionalKey(Schema.Array(Domain).check(Schema.isMaxLength(256, { expected: "an array of at most 256 host names" }))),
  consent_boundary: Schema.optionalKey(bounded(Schema.Unknown, SMALL_JSON))
}).annotate({ identifier: "PlaybookManifest", expected: "a playbook manifest (a YAML mapping)" })
export type PlaybookManifest = typeof PlaybookManifest.Type

// ---------------------------------------------------------------------------
// Wire shapes
// ---------------------------------------------------------------------------

/** One loaded playbook in `GET /playbooks`. `loaded_at`: when this content of the file was loaded (ISO-8601 UTC). */
export const PlaybookSummary = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  description: Schema.NullOr(Schema.String),
  version: Schema.String,
  /** Steps of the manifest (an approval step adds a compiled Confirm step, not counted here). */
  step_count: Schema.Int,
  /** Absolute path of the `playbook.yml`. */
  file_path: Schema.String,
  loaded_at: Schema.String
}).annotate({ identifier: "PlaybookSummary" })
export type PlaybookSummary = typeof PlaybookSummary.Type

/** A file that failed to load: its path, why, and the 1-based line when known. */
export const PlaybookLoadError = Schema.Struct({
  file_path: Schema.String,
  message: Schema.String,
  line: Schema.optionalKey(Schema.Int)
}).annotate({ identifier: "PlaybookLoadError" })
export type PlaybookLoadError = typeof PlaybookLoadError.Type

/** `GET /playbooks`: loaded playbooks sorted by id, and every file that failed to load (sorted by path). */
export const PlaybookListResponse = Schema.Struct({
  playbooks: Schema.Array(PlaybookSummary),
  errors: Schema.Array(PlaybookLoadError)
}).annotate({ identifier: "PlaybookListResponse" })
export type PlaybookListResponse = typeof PlaybookListResponse.Type

/** `GET /playbooks/:id`: the summary, the manifest as decoded, and the compiled workflow steps. */
export const PlaybookDetail = Schema.Struct({
  ...PlaybookSummary.fields,
  manifest: PlaybookManifest,
  steps: Schema.Array(WorkflowStep)
}).annotate({ identifier: "PlaybookDetail" })
export type PlaybookDetail = typeof PlaybookDetail.Type

/** One rule of a dry-run verdict (the policy bundle's rules, or `playbook_approval`). */
export const PlaybookPolicyRule = Schema.Struct({
  rule: Schema.String,
  outcome: BundleDecision,
  detail: Schema.String
})

/** One compiled step of a dry run: the playbook step id (`<id>:approval` for its Confirm step), the action and its verdict. */
export const PlaybookDryRunStep = Schema.Struct({
  step_id: Schema.String,
  action: WorkflowStep,
  policy: Schema.Struct({ decision: BundleDecision, rules: Schema.Array(PlaybookPolicyRule) })
}).annotate({ identifier: "PlaybookDryRunStep" })
export type PlaybookDryRunStep = typeof PlaybookDryRunStep.Type

/** `POST /playbooks/:id/run`: the dry run (nothing executed, nothing written). */
export const PlaybookDryRun = Schema.Struct({
  playbook_id: Schema.String,
  steps: Schema.Array(PlaybookDryRunStep)
}).annotate({ identifier: "PlaybookDryRun" })
export type PlaybookDryRun = typeof PlaybookDryRun.Type

const executeFields = {
  key: Schema.optionalKey(WorkflowKey).annotateKey({ description: "cron:playbook-<id> when absent." }),
  lane: Schema.optionalKey(WorkflowLane).annotateKey({ description: "main when absent." }),
  plan_id: WorkflowRunRequest.fields.plan_id,
  request_id: WorkflowRunRequest.fields.request_id,
  budgets: WorkflowRunRequest.fields.budgets
}

/** `POST /playbooks/:id/execute` (optional body) and what `Playbooks.execute` takes. */
export const PlaybookExecuteRequest = Schema.Struct(executeFields).annotate({
  identifier: "PlaybookExecuteRequest",
  expected: "a JSON object"
})
export type PlaybookExecuteRequest = typeof PlaybookExecuteRequest.Type

const runFields = {
  status: Schema.Literal("ok"),
  job_id: Schema.String,
  run_id: Schema.String,
  playbook_id: Schema.String,
  plan_id: Schema.String,
  request_id: Schema.String,
  key: Schema.String,
  lane: WorkflowLane,
  steps_count: Schema.Int
}

/** `POST /playbooks/:id/execute` 200: the workflow run answer plus `playbook_id`. */
export const PlaybookExecuteResponse = Schema.Struct(runFields).annotate({ identifier: "PlaybookExecuteResponse" })
export type PlaybookExecuteResponse = typeof PlaybookExecuteResponse.Type

/** `POST /playbooks/runtime`: `{action: "run", playbook_id, ...execute fields}` or `{action: "resume", token}`. */
export const PlaybookRuntimeRequest = Schema.Union([
  Schema.Struct({ action: Schema.Literal("run"), playbook_id: PlaybookId, ...executeFields }),
  Schema.Struct({ action: Schema.Literal("resume"), token: text(256) })
]).annotate({
  identifier: "PlaybookRuntimeRequest",
  expected: "{action: \"run\", playbook_id, ...} or {action: \"resume\", token}",
  message: "expected {action: \"run\", playbook_id, ...} or {action: \"resume\", token}"
})
export type PlaybookRuntimeRequest = typeof PlaybookRuntimeRequest.Type

/** `POST /playbooks/runtime` 200: the run envelope or the resume envelope. */
export const PlaybookRuntimeResponse = Schema.Union([
  Schema.Struct({ ...runFields, action: Schema.Literal("run") }),
  Schema.Struct({ status: Schema.Literal("ok"), action: Schema.Literal("resume"), run_id: Schema.String })
]).annotate({ identifier: "PlaybookRuntimeResponse" })
export type PlaybookRuntimeResponse = typeof PlaybookRuntimeResponse.Type
