/**
 * Approval persistence (table `approvals`, services/approvals/migrations).
 * Every transition out of `pending` is ONE conditional write
 * (`UPDATE … WHERE … AND status = 'pending' RETURNING *`), so concurrent
 * resolvers, the expiry fiber and cancellations never both win: the database
 * decides. Rows are decoded with {@link ApprovalRow} (`SqlSchema`), the same
 * on SQLite and PostgreSQL.
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema, type Statement } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import { migrate } from "../../layers/storage/migrations.ts"
import { approvalsMigrations } from "./migrations/index.ts"
import {
  type Approval,
  ApprovalKind,
  ApprovalResolvedBy,
  ApprovalStatus
} from "./schema.ts"
import { serialColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"

/** A stored approval. `context` and `resolved_by` are JSON text; the `scope_*` columns make up `scope`. */
export const ApprovalRow = Schema.Struct({
  id: serialColumn(Schema.Int),
  kind: ApprovalKind,
  status: ApprovalStatus,
  plan_id: Schema.String,
  step_index: Schema.Int,
  prompt: Schema.String,
  context: Schema.fromJsonString(Schema.Unknown),
  created_at: TimestampColumn,
  expires_at: Schema.NullOr(TimestampColumn),
  resolved_at: Schema.NullOr(TimestampColumn),
  resolved_by: Schema.NullOr(Schema.fromJsonString(ApprovalResolvedBy)),
  reason: Schema.NullOr(Schema.String),
  scope_key: Schema.NullOr(Schema.String),
  scope_lane: Schema.NullOr(Schema.String),
  scope_run_id: Schema.NullOr(Schema.String),
  scope_step_index: Schema.NullOr(Schema.Int)
})
export type ApprovalRow = typeof ApprovalRow.Type

/** A row to insert (the database assigns `id`). */
export type NewApprovalRow = Omit<ApprovalRow, "id">

/** The wire record of a row: resolution from the terminal columns, scope only when set. */
export const toApproval = (row: ApprovalRow): Approval => {
  const scope = {
    ...(row.scope_key !== null ? { key: row.scope_key } : {}),
    ...(row.scope_lane !== null ? { lane: row.scope_lane } : {}),
    ...(row.scope_run_id !== null ? { run_id: row.scope_run_id } : {}),
    ...(row.scope_step_index !== null ? { step_index: row.scope_step_index } : {})
  }
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    plan_id: row.plan_id,
    step_index: row.step_index,
    prompt: row.prompt,
    context: row.context,
    created_at: row.created_at,
    expires_at: row.expires_at,
    resolution: row.status === "pending" ? null : {
      decision: row.status === "approved" ? "approved" : "denied",
      resolved_at: row.resolved_at ?? row.created_at,
      ...(row.resolved_by !== null ? { resolved_by: row.resolved_by } : {}),
      ...(row.reason !== null ? { reason: row.reason } : {})
    },
    ...(Object.keys(scope).length > 0 ? { scope } : {})
  }
}

/** Filters of a listing; `after` is the (created_at, id) position of the previous page's last row. */
export interface ApprovalFilter {
  readonly status: ApprovalStatus
  readonly kinds?: ReadonlyArray<ApprovalKind> | undefined
  readonly key?: string | undefined
  readonly lane?: string | undefined
  readonly runId?: string | undefined
  readonly after?: { readonly createdAt: string; readonly id: number } | undefined
  /** Most rows to return; all when absent. */
  readonly limit?: number | undefined
}

/** A decision to write. */
export interface ApprovalDecisionWrite {
  readonly status: "approved" | "denied"
  /** Now (ISO): the write only succeeds while the approval has not expired at this time. */
  readonly at: string
  readonly by: ApprovalResolvedBy
  readonly reason: string | undefined
}

/** Repository of approvals over `SqlClient` (SQLite and PostgreSQL alike). */
export class ApprovalsRepo extends Context.Service<ApprovalsRepo, {
  /** Stores a new approval and returns it with its id. */
  readonly insert: (row: NewApprovalRow) => Effect.Effect<Approval>
  /** The approval, or `undefined` when unknown. */
  readonly get: (id: number) => Effect.Effect<Approval | undefined>
  /** Approvals matching `filter`, by `created_at` then `id`, ascending. */
  readonly list: (filter: ApprovalFilter) => Effect.Effect<ReadonlyArray<Approval>>
  /** Approves or denies `id` if it is pending and not yet expired at `at`; `undefined` when it was not. */
  readonly decide: (id: number, write: ApprovalDecisionWrite) => Effect.Effect<Approval | undefined>
  /** Moves every pending approval whose `expires_at <= now` to `expired` (resolved at its `expires_at`); returns them. */
  readonly expireDue: (now: string) => Effect.Effect<ReadonlyArray<Approval>>
  /** Moves the pending approvals of a plan or run to `cancelled`; returns them. */
  readonly cancel: (
    target: { readonly planId: string } | { readonly runId: string },
    at: string,
    reason: string
  ) => Effect.Effect<ReadonlyArray<Approval>>
  /** The earliest `expires_at` of a pending approval, if any. */
  readonly nextExpiry: Effect.Effect<string | undefined>
  /** Runs `effect` in one transaction (its writes commit together or not at all). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("svc-gateway/approvals/ApprovalsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the approvals migrations first. */
  static readonly layer = Layer.effect(
    ApprovalsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("approvals", approvalsMigrations)

      const InsertRow = ApprovalRow.mapFields(({ id: _, ...fields }) => fields)
      const insert = SqlSchema.findOneOption({
        Request: InsertRow,
        Result: ApprovalRow,
        execute: (row) => sql`INSERT INTO approvals ${sql.insert(row)} RETURNING *`
      })
      const findById = SqlSchema.findOneOption({
        Request: Schema.Int,
        Result: ApprovalRow,
        execute: (id) => sql`SELECT * FROM approvals WHERE id = ${id}`
      })
      const decodeRows = findRows(ApprovalRow)
      const rows = (statement: Effect.Effect<ReadonlyArray<unknown>, SqlError>) =>
        Effect.map(decodeRows(statement), (decoded) => sorted(decoded.map(toApproval)))

      const list = (filter: ApprovalFilter) => {
        const clauses: Array<Statement.Fragment> = [sql`status = ${filter.status}`]
        if (filter.kinds !== undefined && filter.kinds.length > 0) clauses.push(sql.in("kind", filter.kinds))
        if (filter.key !== undefined) clauses.push(sql`scope_key = ${filter.key}`)
        if (filter.lane !== undefined) clauses.push(sql`scope_lane = ${filter.lane}`)
        if (filter.runId !== undefined) clauses.push(sql`scope_run_id = ${filter.runId}`)
        if (filter.after !== undefined) {
          const { createdAt, id } = filter.after
          clauses.push(sql`(created_at > ${createdAt} OR (created_at = ${createdAt} AND id > ${id}))`)
        }
        const limit = filter.limit === undefined ? sql`` : sql`LIMIT ${filter.limit}`
        return rows(sql`SELECT * FROM approvals WHERE ${sql.and(clauses)} ORDER BY created_at, id ${limit}`)
      }

      const decide = (id: number, write: ApprovalDecisionWrite) =>
        Effect.map(
          rows(sql`UPDATE approvals SET status = ${write.status}, resolved_at = ${write.at},
            resolved_by = ${JSON.stringify(write.by)}, reason = ${write.reason ?? null}
            WHERE id = ${id} AND status = 'pending' AND (expires_at IS NULL OR expires_at > ${write.at}) RETURNING *`),
          (updated) => updated[0]
        )

      const system = JSON.stringify({ kind: "system" } satisfies ApprovalResolvedBy)
      const expireDue = (now: string) =>
        rows(sql`UPDATE approvals SET status = 'expired', resolved_at = expires_at, resolved_by = ${system}, reason = 'expired'
          WHERE status = 'pending' AND expires_at <= ${now} RETURNING *`)

      const cancel = (target: { readonly planId: string } | { readonly runId: string }, at: string, reason: string) =>
        rows(sql`UPDATE approvals SET status = 'cancelled', resolved_at = ${at}, resolved_by = ${system}, reason = ${reason}
          WHERE status = 'pending' AND ${"planId" in target ? sql`plan_id = ${target.planId}` : sql`scope_run_id = ${target.runId}`}
          RETURNING *`)

      const nextExpiry = Effect.map(
        findRows(Schema.Struct({ next: Schema.NullOr(Schema.String) }))(
          sql`SELECT MIN(expires_at) AS next FROM approvals WHERE status = 'pending'`
        ),
        (result) => result[0]?.next ?? undefined
      )

      // A row that does not decode is corrupt storage, not a client's mistake: a defect.

      return ApprovalsRepo.of(repositoryEdge("ApprovalsRepo", {
        insert: (row) =>
          Effect.flatMap(insert(row), (o) =>
            o._tag === "Some" ? Effect.succeed(toApproval(o.value)) : Effect.die(new Error("INSERT … RETURNING returned no row"))),
        get: (id) => Effect.map(findById(id), (o) => (o._tag === "Some" ? toApproval(o.value) : undefined)),
        list: (filter) => list(filter),
        decide: (id, write) => decide(id, write),
        expireDue: (now) => expireDue(now),
        cancel: (target, at, reason) => cancel(target, at, reason),
        nextExpiry,
        transaction: transactionAtEdge(sql.withTransaction)
      }))
    })
  )
}

/** `RETURNING` gives no order: sort by `created_at`, then `id`. */
const sorted = (approvals: Array<Approval>): Array<Approval> =>
  approvals.sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id))
