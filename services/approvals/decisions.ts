/**
 * The rules of a decision, shared by HTTP and WebSocket (reference §3.3,
 * §1.4): the legacy `{approved}` body, and the checks of "approve always"
 * (`mode: "always"`) before any override is created. Pure functions.
 */
import { Result, Schema } from "effect"
import { suggestedPatternProblem } from "../policy-bundle/guardrails.ts"
import type { PolicyOverrideCreateInput } from "../policy-bundle/PolicyOverrides.ts"
import { PolicyOverrideCreateRequest } from "../policy-bundle/schema.ts"
import { makeDecoder } from "../shared/decode.ts"
import type {
  Approval,
  ApprovalOverrideSelection,
  ApprovalResolvedBy,
  ApprovalRespondInput,
  ApprovalRespondRequest
} from "./schema.ts"

/** The message of a respond body with neither `decision` nor `approved`. */
export const DECISION_REQUIRED = "decision (\"approved\" or \"denied\") or approved (boolean) is required"

/** The decision of a respond body: `decision` when given (it wins), else the legacy `approved`. */
export const fromRespondRequest = (body: ApprovalRespondRequest): Result.Result<ApprovalRespondInput, string> => {
  const decision = body.decision ?? (body.approved === undefined ? undefined : body.approved ? "approved" : "denied")
  if (decision === undefined) return Result.fail(DECISION_REQUIRED)
  return Result.succeed({ decision, reason: body.reason, mode: body.mode, overrides: body.overrides })
}

const Suggested = Schema.Struct({
  tool_id: Schema.String,
  pattern: Schema.String,
  workspace_id: Schema.optionalKey(Schema.NullOr(Schema.String))
})
const PolicyContext = Schema.Struct({
  policy: Schema.Struct({
    agent_id: Schema.optionalKey(Schema.String),
    policy_snapshot_id: Schema.optionalKey(Schema.String),
    suggested_overrides: Schema.optionalKey(Schema.Array(Schema.Unknown))
  })
})
const decodePolicyContext = Schema.decodeUnknownOption(PolicyContext)
const decodeSuggested = Schema.decodeUnknownOption(Suggested)

const keyOf = (o: { readonly tool_id: string; readonly pattern: string; readonly workspace_id?: string | null | undefined }) =>
  JSON.stringify([o.tool_id, o.pattern, o.workspace_id ?? null])

/** What `context.policy` of an approval offers to "approve always". */
export interface PolicySuggestions {
  readonly agentId: string
  readonly snapshotId: string | undefined
  /** Keys of `suggested_overrides` (tool_id, pattern, workspace_id). */
  readonly suggested: ReadonlySet<string>
}

/** Reads `context.policy` (agent_id default `default`; malformed suggestions are ignored). */
export const policySuggestions = (context: unknown): PolicySuggestions => {
  const policy = decodePolicyContext(context)
  if (policy._tag === "None") return { agentId: "default", snapshotId: undefined, suggested: new Set() }
  const suggested = new Set<string>()
  for (const entry of policy.value.policy.suggested_overrides ?? []) {
    const decoded = decodeSuggested(entry)
    if (decoded._tag === "Some") suggested.add(keyOf(decoded.value))
  }
  return {
    agentId: policy.value.policy.agent_id ?? "default",
    snapshotId: policy.value.policy.policy_snapshot_id,
    suggested
  }
}

/**
 * The overrides a decision creates: none unless it approves with
 * `mode: "always"`. Then the selection (entries with a blank `tool_id` or
 * `pattern` dropped) must be non-empty, each entry must equal one of
 * `context.policy.suggested_overrides`, and each pattern must pass the
 * suggested-pattern guardrail; the failure says which rule broke.
 */
export const plannedOverrides = (
  approval: Approval,
  input: ApprovalRespondInput,
  createdBy: ApprovalResolvedBy
): Result.Result<ReadonlyArray<PolicyOverrideCreateInput>, string> => {
  if (input.decision !== "approved" || input.mode !== "always") return Result.succeed([])
  const selected = (input.overrides ?? []).filter((o) => o.tool_id.trim() !== "" && o.pattern.trim() !== "")
  if (selected.length === 0) return Result.fail("mode=always requires selecting one or more overrides")
  const policy = policySuggestions(approval.context)
  for (const o of selected) {
    if (!policy.suggested.has(keyOf(o))) {
      return Result.fail(
        `requested overrides must be selected from context.policy.suggested_overrides (${describe(o)} is not suggested)`
      )
    }
    const problem = suggestedPatternProblem(o.pattern)
    if (problem !== undefined) {
      return Result.fail(`requested overrides violate the suggested-pattern guardrail: ${describe(o)}: ${problem}`)
    }
  }
  const planned = dedupe(selected).map((o): PolicyOverrideCreateInput => ({
    agent_id: policy.agentId,
    ...(o.workspace_id !== undefined ? { workspace_id: o.workspace_id } : {}),
    tool_id: o.tool_id,
    pattern: o.pattern,
    created_by: createdBy,
    created_from_approval_id: approval.id,
    ...(policy.snapshotId !== undefined ? { created_from_policy_snapshot_id: policy.snapshotId } : {})
  }))
  // Checked like POST /policy/overrides before anything is written, so creating them cannot fail halfway.
  for (const input of planned) {
    const valid = validateOverride(input)
    if (Result.isFailure(valid)) return Result.fail(`the override ${describe(input)} would be invalid: ${valid.failure}`)
  }
  return Result.succeed(planned)
}

const validateOverride = makeDecoder(PolicyOverrideCreateRequest, { label: "override" })

const describe = (o: ApprovalOverrideSelection): string =>
  `${JSON.stringify(o.tool_id.slice(0, 64))} ${JSON.stringify(o.pattern.slice(0, 64))}`

const dedupe = (selected: ReadonlyArray<ApprovalOverrideSelection>): Array<ApprovalOverrideSelection> => {
  const seen = new Set<string>()
  return selected.filter((o) => {
    const key = keyOf(o)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
