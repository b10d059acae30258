/**
 * Session history in a turn's prompt (issue 25 §2 "Sessions"; docs/agent.md
 * "Sessions"): the newest messages that fit the budget
 * (`SVC_AGENT_HISTORY_TOKENS`, a token estimated as 4 characters) go in as
 * they were; older ones are dropped and replaced by one system line saying
 * how many were dropped and what the user asked in them (their first words).
 * A tool result is never kept without the assistant message that asked for
 * it: trimming never starts a history on a `tool` message.
 *
 * A turn reads only what it keeps ({@link loadHistory}: the database sums the
 * estimates from the newest message down, `AgentRepo.recentHistory`, and the
 * summary reads the newest dropped user messages); {@link trimHistory} does
 * the same over rows already read (`/compact`).
 *
 * @module
 */
import { Effect, Schema } from "effect"
import { Prompt } from "effect/ai"
import type { AgentMessageRow, AgentRepo } from "./AgentRepo.ts"
import { estimateTokens } from "./models.ts"

/** The kept messages (oldest first), how many were dropped and the summary line of those. */
export interface TrimmedHistory {
  readonly kept: ReadonlyArray<AgentMessageRow>
  readonly dropped: number
  readonly summary: string | undefined
}

/** Words of a dropped user message shown in the summary. */
const SUMMARY_WORDS = 8
/** Dropped user messages named in the summary (the newest of them). */
const SUMMARY_MESSAGES = 5

const firstWords = (row: AgentMessageRow): string | undefined => {
  try {
    const message = JSON.parse(row.message) as { content?: unknown }
    const text = typeof message.content === "string"
      ? message.content
      : Array.isArray(message.content)
      ? message.content.map((part: { text?: unknown }) => (typeof part.text === "string" ? part.text : "")).join(" ")
      : ""
    const words = text.split(/\s+/).filter((w) => w.length > 0)
    return words.length === 0 ? undefined : words.slice(0, SUMMARY_WORDS).join(" ") + (words.length > SUMMARY_WORDS ? "…" : "")
  } catch {
    return undefined
  }
}

/** Keeps the newest rows within `budgetTokens`; summarises the rest. */
export const trimHistory = (rows: ReadonlyArray<AgentMessageRow>, budgetTokens: number): TrimmedHistory => {
  let used = 0
  let start = rows.length
  while (start > 0) {
    const cost = estimateTokens(rows[start - 1].chars)
    if (used + cost > budgetTokens) break
    used += cost
    start--
  }
  while (start < rows.length && rows[start].role === "tool") start++
  if (start === 0) return { kept: rows, dropped: 0, summary: undefined }
  const asked = rows.slice(0, start).filter((row) => row.role === "user").map(firstWords).filter((w) => w !== undefined)
  return { kept: rows.slice(start), dropped: start, summary: summaryOf(start, asked.slice(-SUMMARY_MESSAGES)) }
}

/** The summary line of `dropped` messages, naming what the user asked in them (`asked`: oldest first). */
const summaryOf = (dropped: number, asked: ReadonlyArray<string>): string => {
  const named = asked.map((w) => `"${w}"`).join("; ")
  return `Earlier in this conversation (${dropped} message${dropped === 1 ? "" : "s"} dropped to fit the history budget)` +
    (named.length > 0 ? `, the user asked: ${named}.` : ".")
}

/**
 * A session's history as {@link trimHistory} keeps it, reading only the kept messages (and, when some were dropped,
 * the newest {@link SUMMARY_MESSAGES} dropped user messages for the summary).
 */
export const loadHistory = Effect.fnUntraced(function*(repo: AgentRepo["Service"], sessionId: string, budgetTokens: number) {
  const recent = yield* repo.recentHistory(sessionId, budgetTokens)
  let start = 0
  while (start < recent.rows.length && recent.rows[start].role === "tool") start++
  const dropped = recent.older + start
  if (dropped === 0) return { kept: recent.rows, dropped: 0, summary: undefined } satisfies TrimmedHistory as TrimmedHistory
  const kept = recent.rows.slice(start)
  // Dropped user messages are all older than the first kept one (the tool messages skipped are not the user's);
  // when none is kept, all are dropped (2^31 - 1: the largest seq, a PostgreSQL INTEGER).
  const before = kept.length > 0 ? kept[0].seq : recent.rows.length > 0 ? recent.rows[recent.rows.length - 1].seq + 1 : 2_147_483_647
  const users = yield* repo.userMessagesBefore(sessionId, before, SUMMARY_MESSAGES)
  const asked = users.map(firstWords).filter((w) => w !== undefined).reverse()
  return { kept, dropped, summary: summaryOf(dropped, asked) } satisfies TrimmedHistory as TrimmedHistory
})

/** Characters of stored messages whose decoded form {@link makeMessageCache} keeps (8 MiB of JSON text). */
export const MESSAGE_CACHE_CHARS = 8 * 1024 * 1024

const decodeMessage = Schema.decodeUnknownSync(Prompt.Message)

/**
 * Decoded history messages by their stored JSON text, least recently used out past `maxChars` characters of it: a
 * session's history goes into every turn's prompt, and is decoded once rather than on every turn. Stored
 * messages never change, and a decoded message is never modified (prompts are concatenated, not edited).
 */
export const makeMessageCache = (maxChars: number = MESSAGE_CACHE_CHARS) => {
  const decoded = new Map<string, Prompt.Message>()
  let chars = 0
  return (text: string): Prompt.Message => {
    const found = decoded.get(text)
    if (found !== undefined) {
      decoded.delete(text)
      decoded.set(text, found)
      return found
    }
    const message = decodeMessage(JSON.parse(text))
    if (text.length <= maxChars) {
      decoded.set(text, message)
      chars += text.length
      for (const [oldest] of decoded) {
        if (chars <= maxChars) break
        decoded.delete(oldest)
        chars -= oldest.length
      }
    }
    return message
  }
}
