/**
 * Messenger persistence (tables of migrations/0001_messenger_inbox.ts) over
 * `SqlClient`, the same SQL on SQLite and PostgreSQL: the inbox (deduplicated
 * by its unique index, each status change one conditional write), the
 * delivery receipts and the approval prompts (single use: one conditional
 * write claims a prompt).
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { serialColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { MessageEnvelope } from "../agent/envelope.ts"
import { messengerMigrations } from "./migrations/index.ts"
import { DeliveryKind, DeliveryStatus, InboxStatus } from "./schema.ts"

/** A stored inbox item (`envelope` as JSON text). */
export const InboxRow = Schema.Struct({
  inbox_id: serialColumn(Schema.Int),
  account: Schema.String,
  chat_id: Schema.String,
  message_id: Schema.String,
  agent_id: Schema.String,
  session_key: Schema.String,
  text: Schema.String,
  envelope: Schema.fromJsonString(MessageEnvelope),
  status: InboxStatus,
  attempts: Schema.Int,
  duplicates: Schema.Int,
  reply: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  received_at: TimestampColumn,
  queued_at: TimestampColumn,
  started_at: Schema.NullOr(TimestampColumn),
  finished_at: Schema.NullOr(TimestampColumn)
})
export type InboxRow = typeof InboxRow.Type

/** A stored delivery receipt. */
export const DeliveryRow = Schema.Struct({
  delivery_id: serialColumn(Schema.Int),
  account: Schema.String,
  chat_id: Schema.String,
  kind: DeliveryKind,
  status: DeliveryStatus,
  attempts: Schema.Int,
  inbox_id: Schema.NullOr(Schema.Int),
  approval_id: Schema.NullOr(Schema.Int),
  platform_message_id: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  created_at: TimestampColumn
})
export type DeliveryRow = typeof DeliveryRow.Type

/** A stored approval prompt: the chat it went to, its buttons' nonce, and when it was used. */
export const ApprovalPromptRow = Schema.Struct({
  approval_id: Schema.Int,
  account: Schema.String,
  chat_id: Schema.String,
  nonce: Schema.String,
  platform_message_id: Schema.NullOr(Schema.String),
  created_at: TimestampColumn,
  used_at: Schema.NullOr(TimestampColumn),
  used_by: Schema.NullOr(Schema.String)
})
export type ApprovalPromptRow = typeof ApprovalPromptRow.Type

/** What queuing an update writes. */
export interface NewInboxItem {
  readonly account: string
  readonly chat_id: string
  readonly message_id: string
  readonly agent_id: string
  readonly session_key: string
  readonly text: string
  readonly envelope: MessageEnvelope
  readonly received_at: string
  readonly queued_at: string
}

/** The inbox item an update landed in, and whether it was there already. */
export interface Enqueued {
  readonly inbox_id: number
  readonly status: InboxStatus
  readonly deduped: boolean
}

/** Counts of the inbox by status, and of deduplicated receipts. */
export type InboxCounts = Record<InboxStatus | "deduplicated", number>

const Claimed = Schema.Struct({ inbox_id: Schema.Int, status: InboxStatus })
const Count = Schema.Struct({ status: Schema.String, n: Schema.Number, d: Schema.NullOr(Schema.Number) })

/** The messenger repository. */
export class InboxRepo extends Context.Service<InboxRepo, {
  /** Adds the update, or (same account, chat and message id) counts a duplicate; the item either way. */
  readonly enqueue: (item: NewInboxItem) => Effect.Effect<Enqueued>
  /** The item, or `undefined`. */
  readonly get: (inboxId: number) => Effect.Effect<InboxRow | undefined>
  /** The session lanes with an item `queued` or `running`, oldest item first. */
  readonly pendingLanes: Effect.Effect<ReadonlyArray<string>>
  /** The lane's items `queued` or `running`, oldest first. */
  readonly pendingIn: (sessionKey: string) => Effect.Effect<ReadonlyArray<InboxRow>>
  /** Marks items `running` (one more attempt) from `queued` or `running`; the ids it moved. */
  readonly claim: (inboxIds: ReadonlyArray<number>, at: string) => Effect.Effect<ReadonlyArray<number>>
  /** Ends `running` or `queued` items with `outcome`. */
  readonly finish: (
    inboxIds: ReadonlyArray<number>,
    outcome: { readonly status: "processed" | "interrupted" | "failed"; readonly reply?: string; readonly error?: string },
    at: string
  ) => Effect.Effect<void>
  /** The newest items (of `status` when given), at most `limit`. */
  readonly list: (filter: { readonly status?: InboxStatus | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<InboxRow>>
  /** Counts by status, and the deduplicated receipts. */
  readonly counts: Effect.Effect<InboxCounts>
  /** Stores a receipt; the stored row. */
  readonly insertDelivery: (row: Omit<DeliveryRow, "delivery_id">) => Effect.Effect<DeliveryRow>
  /** The receipts of these items, oldest first. */
  readonly deliveriesOf: (inboxIds: ReadonlyArray<number>) => Effect.Effect<ReadonlyArray<DeliveryRow>>
  /** Stores a prompt (a second one for the same approval is ignored); `false` when one existed. */
  readonly insertPrompt: (row: ApprovalPromptRow) => Effect.Effect<boolean>
  /** The approval's prompt, or `undefined`. */
  readonly prompt: (approvalId: number) => Effect.Effect<ApprovalPromptRow | undefined>
  /** Records the platform's id of the prompt message. */
  readonly setPromptMessage: (approvalId: number, platformMessageId: string) => Effect.Effect<void>
  /** Marks the prompt used; `false` when it already was (single use). */
  readonly usePrompt: (approvalId: number, at: string, by: string) => Effect.Effect<boolean>
  /** Runs `effect` in one transaction. */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/messenger/InboxRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the messenger migrations first. */
  static readonly layer = Layer.effect(
    InboxRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("messenger", messengerMigrations)
      const items = findRows(InboxRow)
      const deliveries = findRows(DeliveryRow)
      const prompts = findRows(ApprovalPromptRow)
      const claimed = findRows(Claimed)
      const lanes = findRows(Schema.Struct({ session_key: Schema.String }))
      const ids = findRows(Schema.Struct({ inbox_id: Schema.Int }))
      const approvalIds = findRows(Schema.Struct({ approval_id: Schema.Int }))
      const first = <A>(rows: ReadonlyArray<A>) => rows[0]

      return InboxRepo.of(repositoryEdge("InboxRepo", {
        enqueue: (item) =>
          Effect.gen(function*() {
            const inserted = yield* claimed(sql`INSERT INTO messenger_inbox ${
              sql.insert({
                ...item,
                envelope: JSON.stringify(item.envelope),
                status: "queued",
                attempts: 0,
                duplicates: 0,
                reply: null,
                error: null,
                started_at: null,
                finished_at: null
              })
            } ON CONFLICT (account, chat_id, message_id) DO NOTHING RETURNING inbox_id, status`)
            if (inserted.length > 0) return { ...inserted[0], deduped: false }
            const existing = yield* claimed(sql`UPDATE messenger_inbox SET duplicates = duplicates + 1
              WHERE account = ${item.account} AND chat_id = ${item.chat_id} AND message_id = ${item.message_id}
              RETURNING inbox_id, status`)
            return { ...existing[0], deduped: true }
          }),
        get: (inboxId) => Effect.map(items(sql`SELECT * FROM messenger_inbox WHERE inbox_id = ${inboxId}`), first),
        pendingLanes: Effect.map(
          lanes(sql`SELECT session_key FROM messenger_inbox WHERE status IN ('queued', 'running')
            GROUP BY session_key ORDER BY MIN(inbox_id)`),
          (rows) => rows.map((r) => r.session_key)
        ),
        pendingIn: (sessionKey) =>
          items(sql`SELECT * FROM messenger_inbox WHERE session_key = ${sessionKey}
            AND status IN ('queued', 'running') ORDER BY inbox_id`),
        claim: (inboxIds, at) =>
          inboxIds.length === 0 ? Effect.succeed([]) : Effect.map(
            ids(sql`UPDATE messenger_inbox SET status = 'running', attempts = attempts + 1, started_at = ${at}
              WHERE ${sql.in("inbox_id", inboxIds)} AND status IN ('queued', 'running') RETURNING inbox_id`),
            (rows) => rows.map((r) => r.inbox_id)
          ),
        finish: (inboxIds, outcome, at) =>
          inboxIds.length === 0 ? Effect.void : Effect.asVoid(sql`UPDATE messenger_inbox SET ${
            sql.update({ status: outcome.status, reply: outcome.reply ?? null, error: outcome.error ?? null, finished_at: at })
          } WHERE ${sql.in("inbox_id", inboxIds)} AND status IN ('queued', 'running')`),
        list: (filter) =>
          filter.status === undefined
            ? items(sql`SELECT * FROM messenger_inbox ORDER BY inbox_id DESC LIMIT ${filter.limit}`)
            : items(sql`SELECT * FROM messenger_inbox WHERE status = ${filter.status} ORDER BY inbox_id DESC LIMIT ${filter.limit}`),
        counts: Effect.map(
          findRows(Count)(sql`SELECT status, CAST(COUNT(*) AS INTEGER) AS n, CAST(SUM(duplicates) AS INTEGER) AS d FROM messenger_inbox GROUP BY status`),
          // Counts cast to plain numbers (PostgreSQL's COUNT and SUM are bigint).
          (rows) => {
            const counts: InboxCounts = { queued: 0, running: 0, processed: 0, interrupted: 0, failed: 0, deduplicated: 0 }
            for (const row of rows) {
              if (row.status in counts) counts[row.status as InboxStatus] = Number(row.n)
              counts.deduplicated += Number(row.d ?? 0)
            }
            return counts
          }
        ),
        insertDelivery: (row) =>
          Effect.map(deliveries(sql`INSERT INTO messenger_deliveries ${sql.insert({ ...row })} RETURNING *`), (rows) => rows[0]),
        deliveriesOf: (inboxIds) =>
          inboxIds.length === 0
            ? Effect.succeed([])
            : deliveries(sql`SELECT * FROM messenger_deliveries WHERE ${sql.in("inbox_id", inboxIds)} ORDER BY delivery_id`),
        insertPrompt: (row) =>
          Effect.map(
            approvalIds(sql`INSERT INTO messenger_approval_prompts ${sql.insert({ ...row })}
              ON CONFLICT (approval_id) DO NOTHING RETURNING approval_id`),
            (rows) => rows.length > 0
          ),
        prompt: (approvalId) =>
          Effect.map(prompts(sql`SELECT * FROM messenger_approval_prompts WHERE approval_id = ${approvalId}`), first),
        setPromptMessage: (approvalId, platformMessageId) =>
          Effect.asVoid(sql`UPDATE messenger_approval_prompts SET platform_message_id = ${platformMessageId} WHERE approval_id = ${approvalId}`),
        usePrompt: (approvalId, at, by) =>
          Effect.map(
            approvalIds(sql`UPDATE messenger_approval_prompts SET used_at = ${at}, used_by = ${by}
              WHERE approval_id = ${approvalId} AND used_at IS NULL RETURNING approval_id`),
            (rows) => rows.length > 0
          ),
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}
