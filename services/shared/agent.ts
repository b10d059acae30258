/**
 * Agent ids (gateway-api.md "Secrets": "an agent id is 1–64 characters of
 * letters, digits, `_`, `-` and `.`"; the default agent is `default`). One
 * rule for secrets, auth profiles, pins and provider OAuth.
 *
 * @module
 */
import { Schema } from "effect"

/** 1–64 letters, digits, `_`, `-` or `.`. */
export const AGENT_ID_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/

/** The agent a request or record belongs to when it names none. */
export const DEFAULT_AGENT_ID = "default"

/** An agent id (schema): 1–64 letters, digits, `_`, `-` or `.`. */
export const AgentId = Schema.String.check(
  Schema.isPattern(AGENT_ID_PATTERN, { expected: "an agent id (1 to 64 letters, digits, _, - or .)" })
)

/** Why `agentId` is not an agent id, or `undefined` when it is one. */
export const agentIdProblem = (agentId: string): string | undefined =>
  AGENT_ID_PATTERN.test(agentId) ? undefined : "expected an agent id (1 to 64 letters, digits, _, - or .)"
