/**
 * Workflow keys and lanes (reference §6.4; docs/workflow-runs.md "Keys and
 * lanes"). A key names who a run belongs to; one run at a time runs per
 * (key, lane). A key is one of
 *
 * - `agent:<id>:main`, `agent:<id>:<channel>:main` (legacy)
 * - `agent:<id>:dm:<peer>`, `agent:<id>:<channel>:dm:<peer>`,
 *   `agent:<id>:<channel>:<account>:dm:<peer>`
 * - `agent:<id>:<channel>:group:<id>`, `agent:<id>:<channel>:channel:<id>`
 *   and the same with `<account>` after `<channel>`
 * - `cron:<jobId>`, `hook:<uuid>`, `node:<nodeId>`
 *
 * Parts are non-empty and cannot contain `:`; the agent id follows the
 * gateway's agent-id rule (services/shared/agent.ts); a key is at most 512
 * characters. Lanes: `main` (default), `cron`, `heartbeat`, `subagent`.
 *
 * @module
 */
import { Schema } from "effect"
import { AGENT_ID_PATTERN, DEFAULT_AGENT_ID } from "../../shared/agent.ts"
import { UUID_PATTERN } from "../../shared/schemas.ts"

/** Longest key, in characters. */
export const MAX_KEY_LENGTH = 512

/** Longest part of a key (between two `:`), in characters. */
export const MAX_KEY_PART_LENGTH = 128

/** The lanes (reference §6.4). */
export const LANES = ["main", "cron", "heartbeat", "subagent"] as const
export type Lane = typeof LANES[number]

/** The lane of a run that names none. */
export const DEFAULT_LANE: Lane = "main"

/** What a key is. */
export type KeyKind = "agent" | "cron" | "hook" | "node"

/** A key taken apart. */
export interface ParsedKey {
  readonly kind: KeyKind
  /** The agent of an `agent:` key. */
  readonly agentId?: string | undefined
}


/** The forms of an `agent:` key, for messages. */
export const AGENT_KEY_FORMS = "agent:<id>:main, agent:<id>:<channel>:main, agent:<id>:dm:<peer>, " +
  "agent:<id>:<channel>[:<account>]:dm:<peer> or agent:<id>:<channel>[:<account>]:group|channel:<id>"

const agentKeyProblem = (parts: ReadonlyArray<string>): string | undefined => {
  const n = parts.length
  const at = (i: number) => parts[i]
  const isScope = (s: string | undefined) => s === "dm" || s === "group" || s === "channel"
  const ok = (n === 3 && at(2) === "main") ||
    (n === 4 && (at(3) === "main" || at(2) === "dm")) ||
    (n === 5 && isScope(at(3))) ||
    (n === 6 && isScope(at(4)))
  return ok ? undefined : `an agent key has one of the forms ${AGENT_KEY_FORMS}`
}

/**
 * Why `key` is not a key (naming the rule broken), or `undefined` when it is one.
 */
export const keyProblem = (key: string): string | undefined => {
  if (key.length === 0) return "a key must not be empty"
  if (key.length > MAX_KEY_LENGTH) return `a key has at most ${MAX_KEY_LENGTH} characters`
  if (/[\s\u0000-\u001f\u007f]/.test(key)) return "a key must not contain whitespace or control characters"
  const parts = key.split(":")
  const prefix = parts[0]
  if (prefix !== "agent" && prefix !== "cron" && prefix !== "hook" && prefix !== "node") {
    return "a key starts with agent:, cron:, hook: or node:"
  }
  if (parts.some((p) => p.length === 0)) return "key parts must not be empty (and cannot contain ':')"
  if (parts.some((p) => p.length > MAX_KEY_PART_LENGTH)) return `a key part has at most ${MAX_KEY_PART_LENGTH} characters`
  switch (prefix) {
    case "cron":
      return parts.length === 2 ? undefined : "a cron key is cron:<jobId> (the job id cannot contain ':')"
    case "node":
      return parts.length === 2 ? undefined : "a node key is node:<nodeId> (the node id cannot contain ':')"
    case "hook":
      return parts.length === 2 && UUID_PATTERN.test(parts[1]!) ? undefined : "a hook key is hook:<uuid>"
    case "agent": {
      if (parts.length < 3) return `an agent key has one of the forms ${AGENT_KEY_FORMS}`
      if (!AGENT_ID_PATTERN.test(parts[1]!)) {
        return "the agent id of a key is 1 to 64 letters, digits, _, - or ."
      }
      return agentKeyProblem(parts)
    }
  }
}

/** `key` taken apart, or `undefined` when it is not a key. */
export const parseKey = (key: string): ParsedKey | undefined => {
  if (keyProblem(key) !== undefined) return undefined
  const [kind, second] = key.split(":") as [KeyKind, string]
  return kind === "agent" ? { kind, agentId: second } : { kind }
}

/**
 * The agent whose policy bundle governs runs of `key`: the `<id>` of an
 * `agent:` key, else the default agent (`cron:`, `hook:` and `node:` keys name
 * no agent).
 */
export const keyAgentId = (key: string): string => parseKey(key)?.agentId ?? DEFAULT_AGENT_ID

/** A workflow key (reference §6.4); a failure names the rule broken. */
export const WorkflowKey = Schema.String.check(
  Schema.makeFilter((key: string) => keyProblem(key), {
    expected: "a key (agent:<id>:…, cron:<jobId>, hook:<uuid> or node:<nodeId>)"
  })
).annotate({ identifier: "WorkflowKey", description: "Who the run belongs to (reference §6.4)." })

/** A lane (reference §6.4). */
export const WorkflowLane = Schema.Literals(LANES).annotate({
  title: "Lane",
  expected: `a lane: one of ${LANES.join(", ")}`
})

/** True when `lane` is a lane. */
export const isLane = (lane: unknown): lane is Lane => (LANES as ReadonlyArray<unknown>).includes(lane)
