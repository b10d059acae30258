/**
 * Tool calls waiting on an approval (table `agent_tool_calls`, migration 4),
 * the same on SQLite and PostgreSQL.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { agentMigrations } from "./migrations/index.ts"

/** A tool call sent to an approval: `arguments` as JSON text. */
export const AgentToolCallRow = Schema.Struct({
  approval_id: Schema.Int,
  session_id: Schema.String,
  agent_id: Schema.String,
  tool: Schema.String,
  tool_id: Schema.String,
  arguments: Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown)),
  match_target: Schema.String,
  status: Schema.Literals(["pending", "consumed"]),
  outcome: Schema.NullOr(Schema.String),
  created_at: TimestampColumn,
  consumed_at: Schema.NullOr(TimestampColumn)
})
export type AgentToolCallRow = typeof AgentToolCallRow.Type

/** Repository of tool calls waiting on approvals. */
export class ToolCallsRepo extends Context.Service<ToolCallsRepo, {
  /** Records a call waiting on its approval. */
  readonly insert: (row: AgentToolCallRow) => Effect.Effect<void>
  /** The session's waiting calls, oldest first. */
  readonly pending: (sessionId: string) => Effect.Effect<ReadonlyArray<AgentToolCallRow>>
  /** Marks a call consumed with its outcome (`approved`, `denied`, `expired`, `cancelled`); `false` when another turn did first. */
  readonly consume: (approvalId: number, outcome: string, at: string) => Effect.Effect<boolean>
}>()("svc-gateway/agent/ToolCallsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the agent migrations first. */
  static readonly layer = Layer.effect(
    ToolCallsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("agent", agentMigrations)
      const encode = Schema.encodeEffect(AgentToolCallRow)
      const rows = findRows(AgentToolCallRow)
      const Consumed = Schema.Struct({ approval_id: Schema.Int })
      return ToolCallsRepo.of(repositoryEdge("ToolCallsRepo", {
        insert: (row) => Effect.flatMap(encode(row), (encoded) => sql`INSERT INTO agent_tool_calls ${sql.insert(encoded)}`),
        pending: (sessionId) =>
          rows(sql`SELECT * FROM agent_tool_calls WHERE session_id = ${sessionId} AND status = 'pending' ORDER BY approval_id`),
        consume: (approvalId, outcome, at) =>
          Effect.map(
            findRows(Consumed)(sql`UPDATE agent_tool_calls SET status = 'consumed', outcome = ${outcome}, consumed_at = ${at}
              WHERE approval_id = ${approvalId} AND status = 'pending' RETURNING approval_id`),
            (updated) => updated.length > 0
          )
      }))
    })
  )
}
