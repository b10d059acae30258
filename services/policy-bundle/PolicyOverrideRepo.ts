/**
 * Policy override persistence (table `policy_overrides`, migrations/).
 * Rows are encoded and decoded with {@link PolicyOverrideRow} (`SqlSchema`),
 * the same on SQLite and PostgreSQL. Every state change is one conditional
 * write (`… WHERE status = 'active' RETURNING *`), so concurrent revokes and
 * expiries (also across instances sharing PostgreSQL) move a row once.
 *
 * @module
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { PolicyBundleMigrations } from "./migrations/index.ts"
import { type PolicyOverride, PolicyOverrideStatus } from "./schema.ts"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"

const JsonText = Schema.NullOr(Schema.fromJsonString(Schema.Unknown))

/** A stored override. Times are ISO-8601 UTC text; `created_by`/`revoked_by` JSON text; absent values NULL. */
export const PolicyOverrideRow = Schema.Struct({
  policy_override_id: Schema.String,
  status: PolicyOverrideStatus,
  created_at: TimestampColumn,
  created_by: JsonText,
  agent_id: Schema.String,
  workspace_id: Schema.NullOr(Schema.String),
  tool_id: Schema.String,
  pattern: Schema.String,
  created_from_approval_id: Schema.NullOr(Schema.Int),
  created_from_policy_snapshot_id: Schema.NullOr(Schema.String),
  expires_at: Schema.NullOr(TimestampColumn),
  revoked_at: Schema.NullOr(TimestampColumn),
  revoked_by: JsonText,
  revoked_reason: Schema.NullOr(Schema.String)
})
export type PolicyOverrideRow = typeof PolicyOverrideRow.Type

/** The wire record of a row: NULL columns are left out (`expires_at` is kept, `null` meaning "never"). */
export const toPolicyOverride = (row: PolicyOverrideRow): PolicyOverride => ({
  policy_override_id: row.policy_override_id,
  status: row.status,
  created_at: row.created_at,
  ...(row.created_by !== null ? { created_by: row.created_by } : {}),
  agent_id: row.agent_id,
  ...(row.workspace_id !== null ? { workspace_id: row.workspace_id } : {}),
  tool_id: row.tool_id,
  pattern: row.pattern,
  ...(row.created_from_approval_id !== null ? { created_from_approval_id: row.created_from_approval_id } : {}),
  ...(row.created_from_policy_snapshot_id !== null ? { created_from_policy_snapshot_id: row.created_from_policy_snapshot_id } : {}),
  expires_at: row.expires_at,
  ...(row.revoked_at !== null ? { revoked_at: row.revoked_at } : {}),
  ...(row.revoked_by !== null ? { revoked_by: row.revoked_by } : {}),
  ...(row.revoked_reason !== null ? { revoked_reason: row.revoked_reason } : {})
})

/** A page position: the last row of the previous page. */
export interface PageAfter {
  readonly created_at: string
  readonly policy_override_id: string
}

/** Filters and page of {@link PolicyOverrideRepo.list}. */
export interface ListQuery {
  readonly agent_id?: string | undefined
  readonly tool_id?: string | undefined
  readonly status?: PolicyOverrideStatus | undefined
  /** Rows to return at most. */
  readonly limit: number
  /** Start after this row (exclusive). */
  readonly after?: PageAfter | undefined
}

/** Repository of policy overrides over `SqlClient`. */
export class PolicyOverrideRepo extends Context.Service<PolicyOverrideRepo, {
  readonly insert: (row: PolicyOverrideRow) => Effect.Effect<void>
  readonly findById: (id: string) => Effect.Effect<PolicyOverrideRow | undefined>
  /** Rows matching the filters, newest first: `created_at DESC, policy_override_id DESC`, after `after`. */
  readonly list: (query: ListQuery) => Effect.Effect<ReadonlyArray<PolicyOverrideRow>>
  /** Revokes the override if it is active (one conditional write); the revoked row, or `undefined`. */
  readonly revoke: (revocation: {
    readonly policy_override_id: string
    readonly revoked_at: string
    readonly revoked_by: unknown
    readonly revoked_reason: string | null
  }) => Effect.Effect<PolicyOverrideRow | undefined>
  /** Moves every active override whose `expires_at <= now` to `expired`; the rows moved. */
  readonly expireDue: (now: string) => Effect.Effect<ReadonlyArray<PolicyOverrideRow>>
  /** The earliest `expires_at` of the active overrides, if any expires. */
  readonly nextExpiry: Effect.Effect<string | undefined>
  /**
   * The active overrides of `agent_id` for `tool_id` that apply in
   * `workspace_id` (theirs, or none) and have not expired at `now`.
   */
  readonly activeFor: (query: {
    readonly agent_id: string
    readonly tool_id: string
    readonly workspace_id: string | undefined
    readonly now: string
  }) => Effect.Effect<ReadonlyArray<PolicyOverrideRow>>
}>()("svc-gateway/policy-bundle/PolicyOverrideRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the policy-bundle migrations first. */
  static readonly layer = Layer.effect(
    PolicyOverrideRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient

      const insert = SqlSchema.void({
        Request: PolicyOverrideRow,
        execute: (row) => sql`INSERT INTO policy_overrides ${sql.insert(row)}`
      })
      const findById = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: PolicyOverrideRow,
        execute: (id) => sql`SELECT * FROM policy_overrides WHERE policy_override_id = ${id}`
      })
      const list = SqlSchema.findAll({
        Request: Schema.Struct({
          agent_id: Schema.optional(Schema.String),
          tool_id: Schema.optional(Schema.String),
          status: Schema.optional(Schema.String),
          limit: Schema.Number,
          after: Schema.optional(Schema.Struct({ created_at: Schema.String, policy_override_id: Schema.String }))
        }),
        Result: PolicyOverrideRow,
        execute: (q) => {
          const where = [
            ...(q.agent_id !== undefined ? [sql`agent_id = ${q.agent_id}`] : []),
            ...(q.tool_id !== undefined ? [sql`tool_id = ${q.tool_id}`] : []),
            ...(q.status !== undefined ? [sql`status = ${q.status}`] : []),
            ...(q.after !== undefined
              ? [sql`(created_at < ${q.after.created_at} OR (created_at = ${q.after.created_at} AND policy_override_id < ${q.after.policy_override_id}))`]
              : [])
          ]
          return sql`SELECT * FROM policy_overrides WHERE ${sql.and(where)}
            ORDER BY created_at DESC, policy_override_id DESC LIMIT ${q.limit}`
        }
      })
      const revoke = SqlSchema.findOneOption({
        Request: Schema.Struct({
          policy_override_id: Schema.String,
          revoked_at: Schema.String,
          revoked_by: JsonText,
          revoked_reason: Schema.NullOr(Schema.String)
        }),
        Result: PolicyOverrideRow,
        execute: (r) =>
          sql`UPDATE policy_overrides
            SET status = 'revoked', revoked_at = ${r.revoked_at}, revoked_by = ${r.revoked_by}, revoked_reason = ${r.revoked_reason}
            WHERE policy_override_id = ${r.policy_override_id} AND status = 'active' RETURNING *`
      })
      const expireDue = SqlSchema.findAll({
        Request: Schema.String,
        Result: PolicyOverrideRow,
        execute: (now) =>
          sql`UPDATE policy_overrides SET status = 'expired'
            WHERE status = 'active' AND expires_at IS NOT NULL AND expires_at <= ${now} RETURNING *`
      })
      const nextExpiry = SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ expires_at: Schema.NullOr(Schema.String) }),
        execute: () =>
          sql`SELECT MIN(expires_at) AS expires_at FROM policy_overrides WHERE status = 'active' AND expires_at IS NOT NULL`
      })
      const activeFor = SqlSchema.findAll({
        Request: Schema.Struct({ agent_id: Schema.String, tool_id: Schema.String, workspace_id: Schema.NullOr(Schema.String), now: Schema.String }),
        Result: PolicyOverrideRow,
        execute: (q) =>
          sql`SELECT * FROM policy_overrides
            WHERE agent_id = ${q.agent_id} AND tool_id = ${q.tool_id} AND status = 'active'
              AND ${q.workspace_id === null ? sql`workspace_id IS NULL` : sql`(workspace_id IS NULL OR workspace_id = ${q.workspace_id})`}
              AND (expires_at IS NULL OR expires_at > ${q.now})
            ORDER BY created_at, policy_override_id`
      })

      // A row that does not decode is corrupt storage, not a client's mistake: a defect.

      return PolicyOverrideRepo.of(repositoryEdge("PolicyOverrideRepo", {
        insert: (row) => insert(row),
        findById: (id) => Effect.map(findById(id), Option.getOrUndefined),
        list: (query) => list(query),
        revoke: (r) => Effect.map(revoke({ ...r, revoked_by: r.revoked_by ?? null }), Option.getOrUndefined),
        expireDue: (now) => expireDue(now),
        nextExpiry: Effect.map(nextExpiry(undefined), (rows) => rows[0]?.expires_at ?? undefined),
        activeFor: (q) => activeFor({ ...q, workspace_id: q.workspace_id ?? null })
      }))
    })
  ).pipe(Layer.provide(PolicyBundleMigrations))
}
