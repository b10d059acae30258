/**
 * The agent runtime's provider failure (issue 25 §1): 502
 * `agent_runtime_error`, `{error: "agent_runtime_error", message}`.
 *
 * The provider layers implement Effect's `LanguageModel`, whose contract
 * fails with `AiError`; {@link AgentRuntimeError.fromAiError} is the one
 * mapping from such a failure to the gateway's error, applied by the runtime
 * at the turn boundary. Its message names the provider and says what went
 * wrong in the provider's own words (`openai: Incorrect API key provided
 * (HTTP 401)`, `openai: request timed out after 30s`, `builtin/scripted:
 * invalid script /home/x/agents/a/script.yml at line 3: …`). No message ever
 * holds the API key or an `Authorization` / `x-api-key` header: the layers
 * build their `AiError`s from the provider's response body only, never from
 * the request.
 *
 * @module
 */
import { Schema } from "effect"
import { AiError } from "effect/ai"

/**
 * 502 `agent_runtime_error`: the model provider failed (HTTP error, malformed
 * body, timeout, invalid script) or no credential resolves for it. `message`
 * names the provider and what failed; never a credential.
 */
export class AgentRuntimeError extends Schema.TaggedError<AgentRuntimeError>()(
  "AgentRuntimeError",
  { message: Schema.String },
  { httpApiStatus: 502, errorCode: "agent_runtime_error" }
) {
  /**
   * The gateway error for a `LanguageModel` failure of `provider` (`openai`,
   * `anthropic`, `builtin/echo`, `builtin/scripted`): `<provider>: <reason>`,
   * where the reason is the `AiError` reason's description when it has one
   * (the provider layers put the provider's own message there) and its
   * message otherwise. Anything that is not an `AiError` is described by its
   * `message`.
   */
  static fromAiError(provider: string, error: unknown): AgentRuntimeError {
    if (error instanceof AgentRuntimeError) return error
    return new AgentRuntimeError({ message: `${provider}: ${describeFailure(error)}` })
  }
}

const describeFailure = (error: unknown): string => {
  if (AiError.isAiError(error)) {
    const reason = error.reason as { readonly description?: unknown; readonly message: string }
    return typeof reason.description === "string" && reason.description.length > 0 ? reason.description : reason.message
  }
  if (typeof error === "object" && error !== null && typeof (error as { message?: unknown }).message === "string") {
    return (error as { message: string }).message
  }
  return String(error)
}
