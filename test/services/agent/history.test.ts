/**
 * A turn's history on every test database: `loadHistory` (the database sums
 * the token estimates from the newest message down and only the kept
 * messages are read) keeps, drops and summarises exactly as `trimHistory`
 * over the whole session; `append` numbers messages after the session's last
 * one in one statement; `insertSession` answers the stored row, the first
 * writer's when two race.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { AgentRepo, type AgentMessageRow } from "../../../services/agent/AgentRepo.ts"
import { loadHistory, trimHistory } from "../../../services/agent/history.ts"
import { testDatabases } from "../../support/databases.ts"

const AT = "2026-11-27T10:00:00.000Z"

/** A deterministic conversation: user, sometimes an assistant tool call and its results, then the assistant's text. */
const conversation = (turns: number, seed: number): Array<Omit<AgentMessageRow, "session_id" | "seq">> => {
  let state = seed
  const next = (n: number) => (state = (state * 1103515245 + 12345) % 2147483648) % n
  const rows: Array<Omit<AgentMessageRow, "session_id" | "seq">> = []
  const text = (role: "user" | "assistant", words: number) => {
    const body = Array.from({ length: words }, (_, i) => `w${i}x${next(1000)}`).join(" ")
    return { role, message: JSON.stringify({ role, content: [{ type: "text", text: body }] }), chars: body.length, created_at: AT }
  }
  for (let t = 0; t < turns; t++) {
    rows.push(text("user", 1 + next(30)))
    if (next(3) === 0) {
      rows.push({ role: "assistant", message: JSON.stringify({ role: "assistant", content: [] }), chars: 2 + next(50), created_at: AT })
      for (let k = 0; k <= next(2); k++) {
        rows.push({ role: "tool", message: JSON.stringify({ role: "tool", content: [] }), chars: 10 + next(400), created_at: AT })
      }
    }
    rows.push(text("assistant", 1 + next(60)))
  }
  return rows
}

for (const db of testDatabases) {
  describe(`agent history on ${db.name}`, () => {
    it.effect("loadHistory keeps, drops and summarises as trimHistory does over the whole session", () =>
      Effect.gen(function*() {
        const repo = yield* AgentRepo
        for (const [index, turns] of [0, 1, 3, 40, 120].entries()) {
          const session = yield* repo.insertSession({
            session_id: `s${index}`, agent_id: "a", channel: "c", thread_id: `t${index}`, workspace_id: "default",
            model: null, summary: null, created_at: AT, last_turn_at: null
          })
          expect(session.session_id).toBe(`s${index}`)
          const rows = conversation(turns, index + 7)
          // Appended a turn at a time, as turns do.
          for (let i = 0; i < rows.length; i += 3) yield* repo.append(session.session_id, rows.slice(i, i + 3))
          const all = yield* repo.history(session.session_id)
          expect(all.map((row) => row.seq)).toEqual(rows.map((_, i) => i + 1))
          for (const budget of [0, 1, 7, 50, 400, 2_000, 100_000]) {
            const loaded = yield* loadHistory(repo, session.session_id, budget)
            expect(loaded, `${turns} turns, budget ${budget}`).toEqual(trimHistory(all, budget))
          }
        }
      }).pipe(Effect.provide(AgentRepo.layer.pipe(Layer.provideMerge(db.make())))))

    it.effect("insertSession answers the first writer's row when two race for a thread", () =>
      Effect.gen(function*() {
        const repo = yield* AgentRepo
        const row = (id: string) => ({
          session_id: id, agent_id: "a", channel: "c", thread_id: "same", workspace_id: "default",
          model: null, summary: null, created_at: AT, last_turn_at: null
        })
        const first = yield* repo.insertSession(row("first"))
        const second = yield* repo.insertSession(row("second"))
        expect(first.session_id).toBe("first")
        expect(second.session_id).toBe("first")
      }).pipe(Effect.provide(AgentRepo.layer.pipe(Layer.provideMerge(db.make())))))
  })
}
