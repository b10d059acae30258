/**
 * Subagent persistence (tables of ../migrations/0003_subagents.ts) over
 * `SqlClient`, the same SQL on SQLite and PostgreSQL: the subagents, each
 * status change one conditional write (`UPDATE … WHERE status IN (…)
 * RETURNING *`), and the durable queue of their messages.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, type Statement } from "effect/sql"
import { serialColumn, TimestampColumn } from "../../../layers/storage/columns.ts"
import { migrate } from "../../../layers/storage/migrations.ts"
import { repositoryEdge, transactionAtEdge } from "../../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../../layers/storage/rows.ts"
import type { CursorPosition } from "../../shared/cursor.ts"
import { agentMigrations } from "../migrations/index.ts"
import { type Subagent, SUBAGENT_LANE, type SubagentScope, SubagentStatus } from "./schema.ts"

/** A stored subagent. */
export const SubagentRow = Schema.Struct({
  subagent_id: Schema.String,
  tenant_id: Schema.String,
  agent_id: Schema.String,
  workspace_id: Schema.String,
  work_item_id: Schema.NullOr(Schema.String),
  work_item_task_id: Schema.NullOr(Schema.String),
  execution_profile: Schema.String,
  session_key: Schema.String,
  lane: Schema.String,
  status: SubagentStatus,
  created_at: TimestampColumn,
  last_heartbeat_at: Schema.NullOr(TimestampColumn),
  updated_at: Schema.NullOr(TimestampColumn),
  closed_at: Schema.NullOr(TimestampColumn)
})
export type SubagentRow = typeof SubagentRow.Type

/** Where a queued message is: `queued` → `running` → `done` | `failed`; `cancelled` when its subagent closed first. */
export const SubagentMessageStatus = Schema.Literals(["queued", "running", "done", "failed", "cancelled"])
export type SubagentMessageStatus = typeof SubagentMessageStatus.Type

/** A stored `subagent.send` message. */
export const SubagentMessageRow = Schema.Struct({
  message_id: serialColumn(Schema.Int),
  subagent_id: Schema.String,
  content: Schema.String,
  status: SubagentMessageStatus,
  attempts: Schema.Int,
  reply: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  created_at: TimestampColumn,
  started_at: Schema.NullOr(TimestampColumn),
  finished_at: Schema.NullOr(TimestampColumn)
})
export type SubagentMessageRow = typeof SubagentMessageRow.Type

/** A row as the wire's descriptor (null columns left out). */
export const toSubagent = (row: SubagentRow): Subagent => ({
  subagent_id: row.subagent_id,
  tenant_id: row.tenant_id,
  agent_id: row.agent_id,
  workspace_id: row.workspace_id,
  ...(row.work_item_id !== null ? { work_item_id: row.work_item_id } : {}),
  ...(row.work_item_task_id !== null ? { work_item_task_id: row.work_item_task_id } : {}),
  execution_profile: row.execution_profile,
  session_key: row.session_key,
  lane: SUBAGENT_LANE,
  status: row.status,
  created_at: row.created_at,
  ...(row.last_heartbeat_at !== null ? { last_heartbeat_at: row.last_heartbeat_at } : {}),
  ...(row.updated_at !== null ? { updated_at: row.updated_at } : {}),
  ...(row.closed_at !== null ? { closed_at: row.closed_at } : {})
})

/** Which subagents `list` reads: statuses (any when absent or empty), after a cursor position, at most `limit`. */
export interface SubagentFilter {
  readonly statuses?: ReadonlyArray<SubagentStatus> | undefined
  readonly after?: CursorPosition<string> | undefined
  readonly limit: number
}

/** A status change: from one of `from` to `to`, with the fields that change with it. */
export interface SubagentMove {
  readonly from: ReadonlyArray<SubagentStatus>
  readonly to: SubagentStatus
  readonly at: string
  readonly closed?: boolean
}

/** The subagents repository. */
export class SubagentsRepo extends Context.Service<SubagentsRepo, {
  readonly insert: (row: SubagentRow) => Effect.Effect<SubagentRow>
  /** The subagent, or `undefined`. */
  readonly get: (id: string) => Effect.Effect<SubagentRow | undefined>
  /** One page of `scope`'s subagents by `created_at`, then id. */
  readonly list: (scope: SubagentScope, filter: SubagentFilter) => Effect.Effect<ReadonlyArray<SubagentRow>>
  /** Moves `id` when its status is one of `move.from` (sets `updated_at`, and `closed_at` with `closed`); the row after, or `undefined`. */
  readonly move: (id: string, move: SubagentMove) => Effect.Effect<SubagentRow | undefined>
  /** Sets `last_heartbeat_at`. */
  readonly heartbeat: (id: string, at: string) => Effect.Effect<void>
  /** Queues a message (`queued`, no attempts yet); its generated id. */
  readonly enqueue: (subagentId: string, content: string, at: string) => Effect.Effect<number>
  /** The subagent's first message still `queued` or `running` (by id), or `undefined`. */
  readonly nextMessage: (subagentId: string) => Effect.Effect<SubagentMessageRow | undefined>
  /** The subagents having a message `queued` or `running`, oldest message first. */
  readonly withPendingMessages: Effect.Effect<ReadonlyArray<string>>
  /** Marks a message `running` (one more attempt) from `queued` or `running`; `false` when it was not pending. */
  readonly claim: (messageId: number, at: string) => Effect.Effect<boolean>
  /** Ends a pending message: `done` with its reply, `failed` with the error, `cancelled`. */
  readonly finish: (
    messageId: number,
    outcome: { readonly status: "done" | "failed" | "cancelled"; readonly reply?: string; readonly error?: string },
    at: string
  ) => Effect.Effect<void>
  /** Cancels the subagent's messages still `queued`; how many. */
  readonly cancelQueued: (subagentId: string, at: string) => Effect.Effect<number>
  /** One message (tests and diagnostics), or `undefined`. */
  readonly message: (messageId: number) => Effect.Effect<SubagentMessageRow | undefined>
  /** Runs `effect` in one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/agent/SubagentsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the agent migrations first. */
  static readonly layer = Layer.effect(
    SubagentsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("agent", agentMigrations)
      const subagents = findRows(SubagentRow)
      const messages = findRows(SubagentMessageRow)
      const ids = findRows(Schema.Struct({ subagent_id: Schema.String }))
      const first = <A>(rows: ReadonlyArray<A>) => rows[0]

      return SubagentsRepo.of(repositoryEdge("SubagentsRepo", {
        insert: (row) => Effect.map(subagents(sql`INSERT INTO agent_subagents ${sql.insert({ ...row })} RETURNING *`), (rows) => rows[0]),
        get: (id) => Effect.map(subagents(sql`SELECT * FROM agent_subagents WHERE subagent_id = ${id}`), first),
        list: (scope, filter) => {
          const clauses: Array<Statement.Fragment> = [
            sql`tenant_id = ${scope.tenant_id} AND agent_id = ${scope.agent_id} AND workspace_id = ${scope.workspace_id}`
          ]
          if (filter.statuses !== undefined && filter.statuses.length > 0) clauses.push(sql.in("status", filter.statuses))
          if (filter.after !== undefined) {
            const { createdAt, id } = filter.after
            clauses.push(sql`(created_at > ${createdAt} OR (created_at = ${createdAt} AND subagent_id > ${id}))`)
          }
          return subagents(sql`SELECT * FROM agent_subagents WHERE ${sql.and(clauses)} ORDER BY created_at, subagent_id LIMIT ${filter.limit}`)
        },
        move: (id, move) =>
          Effect.map(
            subagents(sql`UPDATE agent_subagents SET ${
              sql.update({ status: move.to, updated_at: move.at, ...(move.closed === true ? { closed_at: move.at } : {}) })
            } WHERE subagent_id = ${id} AND ${sql.in("status", move.from)} RETURNING *`),
            first
          ),
        heartbeat: (id, at) => Effect.asVoid(sql`UPDATE agent_subagents SET last_heartbeat_at = ${at} WHERE subagent_id = ${id}`),
        enqueue: (subagentId, content, at) =>
          Effect.map(
            findRows(Schema.Struct({ message_id: Schema.Int }))(sql`INSERT INTO agent_subagent_messages ${
              sql.insert({ subagent_id: subagentId, content, status: "queued", attempts: 0, created_at: at })
            } RETURNING message_id`),
            (rows) => rows[0].message_id
          ),
        nextMessage: (subagentId) =>
          Effect.map(
            messages(sql`SELECT * FROM agent_subagent_messages WHERE subagent_id = ${subagentId}
              AND status IN ('queued', 'running') ORDER BY message_id LIMIT 1`),
            first
          ),
        withPendingMessages: Effect.map(
          ids(sql`SELECT subagent_id FROM agent_subagent_messages WHERE status IN ('queued', 'running')
            GROUP BY subagent_id ORDER BY MIN(message_id)`),
          (rows) => rows.map((r) => r.subagent_id)
        ),
        claim: (messageId, at) =>
          Effect.map(
            findRows(Schema.Struct({ message_id: Schema.Int }))(sql`UPDATE agent_subagent_messages
              SET status = 'running', attempts = attempts + 1, started_at = ${at}
              WHERE message_id = ${messageId} AND status IN ('queued', 'running') RETURNING message_id`),
            (rows) => rows.length > 0
          ),
        finish: (messageId, outcome, at) =>
          Effect.asVoid(sql`UPDATE agent_subagent_messages SET ${
            sql.update({ status: outcome.status, reply: outcome.reply ?? null, error: outcome.error ?? null, finished_at: at })
          } WHERE message_id = ${messageId} AND status IN ('queued', 'running')`),
        cancelQueued: (subagentId, at) =>
          Effect.map(
            findRows(Schema.Struct({ message_id: Schema.Int }))(sql`UPDATE agent_subagent_messages
              SET status = 'cancelled', error = 'the subagent was closed', finished_at = ${at}
              WHERE subagent_id = ${subagentId} AND status = 'queued' RETURNING message_id`),
            (rows) => rows.length
          ),
        message: (messageId) => Effect.map(messages(sql`SELECT * FROM agent_subagent_messages WHERE message_id = ${messageId}`), first),
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}
