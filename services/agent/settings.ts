/**
 * Agent runtime settings (issue 25 §1–2; layers/settings.ts; docs/agent.md
 * "Settings"): whether the runtime is served, the default model and the
 * session history budget.
 *
 * @module
 */
import { Result } from "effect"
import { Setting } from "../../layers/settings.ts"

/** A model reference: `provider/model` (letters, digits, `.`, `_`, `-`, `:`; the model part may hold `/`). */
export const MODEL_REF_PATTERN = /^[a-z0-9][a-z0-9_-]*\/[A-Za-z0-9._:/-]+$/

/** Accepts an http(s) URL (trailing `/` dropped); else names the variable. */
const httpUrl = (env: string) => (raw: string): Result.Result<string, string> => {
  const text = raw.trim().replace(/\/+$/, "")
  try {
    const url = new URL(text)
    if (url.protocol === "http:" || url.protocol === "https:") return Result.succeed(text)
  } catch {
    // reported below
  }
  return Result.fail(`${env} must be an http(s) URL, got "${raw}"`)
}

/** `SVC_AGENT_ENABLED`, `SVC_AGENT_MODEL`, `SVC_OPENAI_BASE_URL`, `SVC_ANTHROPIC_BASE_URL`, `SVC_AGENT_HISTORY_TOKENS`. */
export const AgentSettings = Setting.group("agent", {
  agent: Setting.named(
    "agentEnabled",
    Setting.toggle({
      env: "SVC_AGENT_ENABLED",
      flag: "agent",
      values: ["1", "0"],
      on: "1",
      default: "0",
      summary: "The agent runtime (SVC_AGENT_ENABLED=1); 0 answers its routes 404 and its WS types unsupported_request",
      doc: "`1` serves `POST /agent/turn`, `GET /agent/status`, `/context*` and `session.send`; `0` (the default) " +
        "answers those routes 404 and those WebSocket types `unsupported_request`."
    })
  ),
  agentModel: Setting.text({
    env: "SVC_AGENT_MODEL",
    flag: "agent-model",
    default: "builtin/echo",
    summary: "The agents' default model as provider/model (SVC_AGENT_MODEL)",
    doc: "A `provider/model` id (`builtin/echo`, `builtin/scripted`, `openai/gpt-4.1-mini`, `anthropic/…`); a " +
      "session's `/model` overrides it. The built-in providers need no network and no credential.",
    resolve: (raw) =>
      MODEL_REF_PATTERN.test(raw.trim())
        ? Result.succeed(raw.trim())
        : Result.fail(`SVC_AGENT_MODEL must be a model id provider/model (e.g. builtin/echo, openai/gpt-4.1-mini), got "${raw}"`)
  }),
  openaiBaseUrl: Setting.text({
    env: "SVC_OPENAI_BASE_URL",
    flag: "openai-base-url",
    default: "https://api.openai.com/v1",
    summary: "Base URL of the OpenAI-compatible provider (SVC_OPENAI_BASE_URL); requests go to <base>/chat/completions",
    doc: "Any server speaking OpenAI's chat completions works (a local model server, a proxy).",
    resolve: httpUrl("SVC_OPENAI_BASE_URL")
  }),
  anthropicBaseUrl: Setting.text({
    env: "SVC_ANTHROPIC_BASE_URL",
    flag: "anthropic-base-url",
    default: "https://api.anthropic.com/v1",
    summary: "Base URL of the Anthropic provider (SVC_ANTHROPIC_BASE_URL); requests go to <base>/messages",
    doc: "Any server speaking Anthropic's messages API works.",
    resolve: httpUrl("SVC_ANTHROPIC_BASE_URL")
  }),
  agentHistoryTokens: Setting.integer({
    env: "SVC_AGENT_HISTORY_TOKENS",
    flag: "agent-history-tokens",
    default: 8000,
    min: 256,
    unit: "tokens",
    summary: "Session history kept in a turn's prompt, in estimated tokens (SVC_AGENT_HISTORY_TOKENS)",
    doc: "The newest messages of a session that fit this budget (a token is estimated as 4 characters) go into each " +
      "turn's prompt; older ones are replaced by a one-line summary of what was dropped."
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the agent runtime's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly agent: typeof AgentSettings.settings
  }
}
