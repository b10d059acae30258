/**
 * Checks an edited routing configuration in the browser before it is sent,
 * with the schema the server decodes `PUT /routing/config` with
 * (`RoutingConfigUpdateRequest`, strict: unknown keys are errors) and the
 * server's own wording (services/shared/decode.ts), so the issue shown here is
 * the 400 the gateway would answer: `config.messenger.bogus: unexpected field`.
 * The gateway still checks every request.
 */
import { Result, Schema } from "effect"
import { DIAGNOSTIC_PARSE_OPTIONS, formatIssue, parseJsonBody } from "../../../../services/shared/decode.ts"
import { RoutingConfigUpdateRequest } from "../../../../services/routing/schema.ts"
import type { RoutingConfig } from "./types.ts"

const decode = Schema.decodeUnknownResult(RoutingConfigUpdateRequest, DIAGNOSTIC_PARSE_OPTIONS)

/** The body to send, or the one-line issue (`<path>: <message>`; `config: malformed JSON: …` for text that is not JSON). */
export type Checked =
  | { readonly ok: true; readonly body: { readonly config: RoutingConfig; readonly reason?: string } }
  | { readonly ok: false; readonly issue: string }

/** Parses `text` as JSON and decodes `{config, reason}` (a blank reason is left out). */
export const checkRoutingConfig = (text: string, reason: string): Checked => {
  const parsed = parseJsonBody(text)
  if (Result.isFailure(parsed)) return { ok: false, issue: `config: ${parsed.failure}` }
  const trimmed = reason.trim()
  const decoded = decode({ config: parsed.success, ...(trimmed === "" ? {} : { reason: trimmed }) })
  return Result.isSuccess(decoded) ? { ok: true, body: decoded.success } : { ok: false, issue: formatIssue(decoded.failure.issue) }
}
