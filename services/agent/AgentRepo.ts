/**
 * Agent runtime persistence (tables of migrations/0001_agent.ts) over
 * `SqlClient`, the same on SQLite and PostgreSQL: sessions by (agent,
 * channel, thread), their message history and the turns' context reports.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { agentMigrations } from "./migrations/index.ts"
import { ContextReport } from "./schema.ts"

/** A session row. */
export const AgentSessionRow = Schema.Struct({
  session_id: Schema.String,
  agent_id: Schema.String,
  channel: Schema.String,
  thread_id: Schema.String,
  workspace_id: Schema.String,
  model: Schema.NullOr(Schema.String),
  summary: Schema.NullOr(Schema.String),
  created_at: TimestampColumn,
  last_turn_at: Schema.NullOr(TimestampColumn)
})
export type AgentSessionRow = typeof AgentSessionRow.Type

/** A history row: `message` is an `effect/ai` prompt message (encoded) as JSON text. */
export const AgentMessageRow = Schema.Struct({
  session_id: Schema.String,
  seq: Schema.Int,
  role: Schema.Literals(["user", "assistant", "tool"]),
  message: Schema.String,
  chars: Schema.Int,
  created_at: TimestampColumn
})
export type AgentMessageRow = typeof AgentMessageRow.Type

/** The newest messages of a session within a token budget ({@link AgentRepo} `recentHistory`). */
export interface RecentHistory {
  /** The newest messages whose estimated tokens sum to at most the budget, oldest first. */
  readonly rows: ReadonlyArray<AgentMessageRow>
  /** How many older messages the session has (before `rows`). */
  readonly older: number
}

/** A context report row (`report` as JSON text; usage as columns). */
export const AgentContextReportRow = Schema.Struct({
  context_report_id: Schema.String,
  session_id: Schema.String,
  agent_id: Schema.String,
  run_id: Schema.NullOr(Schema.String),
  model: Schema.String,
  input_tokens: Schema.Int,
  output_tokens: Schema.Int,
  total_tokens: Schema.Int,
  usd_micros: Schema.Int,
  report: Schema.fromJsonString(ContextReport),
  generated_at: TimestampColumn
})
export type AgentContextReportRow = typeof AgentContextReportRow.Type

/** Which reports `GET /context/list` reads. */
export interface ReportFilter {
  readonly session_id?: string | undefined
  readonly run_id?: string | undefined
  readonly limit: number
}

/** Repository of agent sessions, their history and context reports. */
export class AgentRepo extends Context.Service<AgentRepo, {
  /** The session of (agent, channel, thread), or `undefined`. */
  readonly findSession: (agentId: string, channel: string, threadId: string) => Effect.Effect<AgentSessionRow | undefined>
  /** The session `sessionId`, or `undefined`. */
  readonly getSession: (sessionId: string) => Effect.Effect<AgentSessionRow | undefined>
  /** Stores a new session; answers the stored one (another writer's when it raced this one). */
  readonly insertSession: (row: AgentSessionRow) => Effect.Effect<AgentSessionRow>
  /** Stores a new session unless its thread has one: the stored row, or `undefined` when the thread had one. */
  readonly createSession: (row: AgentSessionRow) => Effect.Effect<AgentSessionRow | undefined>
  /** Sets a session's model override (`null`: back to the default) . */
  readonly setModel: (sessionId: string, model: string | null) => Effect.Effect<void>
  /** Sets a session's summary of trimmed history and its last turn time. */
  readonly touch: (sessionId: string, fields: { readonly summary?: string | null; readonly last_turn_at?: string }) => Effect.Effect<void>
  /** Deletes a session's history and summary (`/new`, `/reset`). */
  readonly clearHistory: (sessionId: string) => Effect.Effect<void>
  /** Deletes the session's `count` oldest messages (`/compact`). */
  readonly dropOldest: (sessionId: string, count: number) => Effect.Effect<void>
  /** A session's history, oldest first. */
  readonly history: (sessionId: string) => Effect.Effect<ReadonlyArray<AgentMessageRow>>
  /**
   * The newest messages of a session whose token estimates (`ceil(chars / 4)`) sum to at most `budgetTokens`, and
   * how many are older: what a turn's prompt can keep, without reading the rest (history.ts).
   */
  readonly recentHistory: (sessionId: string, budgetTokens: number) => Effect.Effect<RecentHistory>
  /** The newest `limit` user messages of a session before `seq`, newest first (the summary of dropped history). */
  readonly userMessagesBefore: (sessionId: string, seq: number, limit: number) => Effect.Effect<ReadonlyArray<AgentMessageRow>>
  /** Appends messages after the session's last `seq` (one statement). */
  readonly append: (sessionId: string, messages: ReadonlyArray<Omit<AgentMessageRow, "session_id" | "seq">>) => Effect.Effect<void>
  /** How many sessions an agent has and its last turn time. */
  readonly agentFigures: (agentId: string) => Effect.Effect<{ readonly sessions: number; readonly last_turn_at: string | null }>
  /** Stores a context report. */
  readonly insertReport: (row: AgentContextReportRow) => Effect.Effect<void>
  /** The agent's newest report, or `undefined`. */
  readonly lastReport: (agentId: string) => Effect.Effect<AgentContextReportRow | undefined>
  /** Reports newest first, by session and/or run. */
  readonly listReports: (filter: ReportFilter) => Effect.Effect<ReadonlyArray<AgentContextReportRow>>
  /** One report, or `undefined`. */
  readonly getReport: (id: string) => Effect.Effect<AgentContextReportRow | undefined>
  /** Runs `effect` in one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/agent/AgentRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the agent migrations first. */
  static readonly layer = Layer.effect(
    AgentRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("agent", agentMigrations)
      const sessions = findRows(AgentSessionRow)
      const messages = findRows(AgentMessageRow)
      const reports = findRows(AgentContextReportRow)
      const historyCut = findRows(Schema.Struct({
        cut: Schema.NullOr(Schema.Union([Schema.Int, Schema.NumberFromString])),
        total: Schema.Union([Schema.Int, Schema.NumberFromString])
      }))
      const encodeReport = Schema.encodeEffect(AgentContextReportRow)
      const Figures = Schema.Struct({
        sessions: Schema.Union([Schema.Int, Schema.NumberFromString]),
        last_turn_at: Schema.NullOr(Schema.String)
      })

      const findSession = (agentId: string, channel: string, threadId: string) =>
        Effect.map(
          sessions(sql`SELECT * FROM agent_sessions WHERE agent_id = ${agentId} AND channel = ${channel} AND thread_id = ${threadId}`),
          (rows) => rows[0]
        )

      const createSession = (row: AgentSessionRow) =>
        Effect.map(
          sessions(sql`INSERT INTO agent_sessions ${sql.insert({ ...row })} ON CONFLICT (agent_id, channel, thread_id) DO NOTHING RETURNING *`),
          (rows) => rows[0]
        )

      // The new row when this insert won; another writer's (read back) when it raced this one.
      const insertSession = (row: AgentSessionRow) =>
        Effect.gen(function*() {
          const inserted = yield* createSession(row)
          if (inserted !== undefined) return inserted
          const stored = yield* findSession(row.agent_id, row.channel, row.thread_id)
          return stored ?? row
        })

      // The next seq is read in the insert itself: one statement, numbered after the session's last message.
      const append = (sessionId: string, rows: ReadonlyArray<Omit<AgentMessageRow, "session_id" | "seq">>) =>
        rows.length === 0 ? Effect.void : Effect.asVoid(sql`INSERT INTO agent_messages (session_id, seq, role, message, chars, created_at)
          SELECT ${sessionId}, last.seq + v.column1, v.column2, v.column3, v.column4, v.column5
          FROM (SELECT COALESCE(MAX(seq), 0) AS seq FROM agent_messages WHERE session_id = ${sessionId}) AS last,
            (VALUES ${
          sql.csv(rows.map((row, i) => sql`(${i + 1}, ${row.role}, ${row.message}, CAST(${row.chars} AS INTEGER), ${row.created_at})`))
        }) AS v`)

      // Where the budget cuts the session (the running token estimate from the newest message down, summed in the
      // database over the light columns) and how many messages it has; then only the messages after the cut are read.
      const recentHistory = (sessionId: string, budgetTokens: number) =>
        Effect.gen(function*() {
          const [place] = yield* historyCut(sql`SELECT MIN(CASE WHEN tokens <= ${budgetTokens} THEN seq END) AS cut, CAST(COUNT(*) AS INTEGER) AS total
            FROM (SELECT seq, SUM((chars + 3) / 4) OVER (ORDER BY seq DESC) AS tokens
              FROM agent_messages WHERE session_id = ${sessionId}) AS w`)
          const total = place?.total ?? 0
          if (place?.cut == null) return { rows: [], older: total } satisfies RecentHistory as RecentHistory
          const rows = yield* messages(sql`SELECT * FROM agent_messages WHERE session_id = ${sessionId} AND seq >= ${place.cut} ORDER BY seq`)
          return { rows, older: Math.max(0, total - rows.length) } satisfies RecentHistory as RecentHistory
        })

      return AgentRepo.of(repositoryEdge("AgentRepo", {
        findSession,
        getSession: (sessionId) =>
          Effect.map(sessions(sql`SELECT * FROM agent_sessions WHERE session_id = ${sessionId}`), (rows) => rows[0]),
        insertSession,
        createSession,
        setModel: (sessionId, model) => Effect.asVoid(sql`UPDATE agent_sessions SET model = ${model} WHERE session_id = ${sessionId}`),
        touch: (sessionId, fields) =>
          Object.keys(fields).length === 0
            ? Effect.void
            : Effect.asVoid(sql`UPDATE agent_sessions SET ${sql.update(fields as Record<string, unknown>)} WHERE session_id = ${sessionId}`),
        clearHistory: (sessionId) =>
          Effect.asVoid(Effect.andThen(
            sql`DELETE FROM agent_messages WHERE session_id = ${sessionId}`,
            sql`UPDATE agent_sessions SET summary = NULL WHERE session_id = ${sessionId}`
          )),
        dropOldest: (sessionId, count) =>
          count <= 0 ? Effect.void : Effect.asVoid(sql`DELETE FROM agent_messages WHERE session_id = ${sessionId} AND seq IN (
            SELECT seq FROM agent_messages WHERE session_id = ${sessionId} ORDER BY seq LIMIT ${count})`),
        history: (sessionId) => messages(sql`SELECT * FROM agent_messages WHERE session_id = ${sessionId} ORDER BY seq`),
        recentHistory,
        userMessagesBefore: (sessionId, seq, limit) =>
          messages(sql`SELECT * FROM agent_messages WHERE session_id = ${sessionId} AND role = 'user' AND seq < ${seq}
            ORDER BY seq DESC LIMIT ${limit}`),
        append,
        agentFigures: (agentId) =>
          Effect.map(
            findRows(Figures)(sql`SELECT CAST(COUNT(*) AS INTEGER) AS sessions, MAX(last_turn_at) AS last_turn_at FROM agent_sessions WHERE agent_id = ${agentId}`),
            (rows) => ({ sessions: rows[0]?.sessions ?? 0, last_turn_at: rows[0]?.last_turn_at ?? null })
          ),
        insertReport: (row) => Effect.flatMap(encodeReport(row), (encoded) => sql`INSERT INTO agent_context_reports ${sql.insert(encoded)}`),
        lastReport: (agentId) =>
          Effect.map(
            reports(sql`SELECT * FROM agent_context_reports WHERE agent_id = ${agentId}
              ORDER BY generated_at DESC, context_report_id DESC LIMIT 1`),
            (rows) => rows[0]
          ),
        listReports: (filter) => {
          const where = [sql`1 = 1`]
          if (filter.session_id !== undefined) where.push(sql`session_id = ${filter.session_id}`)
          if (filter.run_id !== undefined) where.push(sql`run_id = ${filter.run_id}`)
          return reports(sql`SELECT * FROM agent_context_reports WHERE ${sql.and(where)}
            ORDER BY generated_at DESC, context_report_id DESC LIMIT ${filter.limit}`)
        },
        getReport: (id) => Effect.map(reports(sql`SELECT * FROM agent_context_reports WHERE context_report_id = ${id}`), (rows) => rows[0]),
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}
