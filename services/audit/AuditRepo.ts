/**
 * Audit persistence (tables `audit_events`, `audit_chains`;
 * services/audit/migrations). An append is three statements inside one
 * transaction: {@link AuditRepo.claim} (the head row's upsert: takes the
 * next `step_index` and returns the predecessor's hash, holding the head
 * until commit), {@link AuditRepo.insert} and {@link AuditRepo.advance}
 * (the head's new hash). Rows decode with {@link AuditEventRow}, the same on
 * SQLite and PostgreSQL.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { migrate } from "../../layers/storage/migrations.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { auditMigrations } from "./migrations/index.ts"
import type { ChainHead } from "./verify.ts"
import { HashedTextColumn, serialColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge, transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"

/** A stored event; `action` is the canonical JSON text (null once anonymized). */
export const AuditEventRow = Schema.Struct({
  id: serialColumn(Schema.Int),
  plan_id: Schema.String,
  step_index: Schema.Int,
  occurred_at: HashedTextColumn,
  action: Schema.NullOr(HashedTextColumn),
  action_sha256: Schema.String,
  prev_hash: Schema.NullOr(Schema.String),
  event_hash: Schema.String
})
export type AuditEventRow = typeof AuditEventRow.Type

/** Where the next event of a chain goes. */
export interface ChainSlot {
  readonly step_index: number
  readonly prev_hash: string | null
}

const SlotRow = Schema.Struct({ last_step_index: Schema.Int, last_hash: Schema.NullOr(Schema.String) })

/** A stored chain head (`audit_chains`); also the row schema a snapshot import checks `audit_chains` rows with. */
export const AuditChainRow = Schema.Struct({ plan_id: Schema.String, ...SlotRow.fields })
const IdRow = Schema.Struct({ id: Schema.Int })

/** Most ids bound in one `IN (…)`. */
const CHUNK = 500

/** Repository of audit chains over `SqlClient`. */
export class AuditRepo extends Context.Service<AuditRepo, {
  /**
   * Claims the next slot of `planId`'s chain: step 0 with no predecessor for
   * a new chain, else the head's index + 1 and its hash. Holds the head
   * until the enclosing transaction ends (call inside one).
   */
  readonly claim: (planId: string) => Effect.Effect<ChainSlot>
  /** Inserts an event; returns its id. */
  readonly insert: (row: Omit<AuditEventRow, "id">) => Effect.Effect<number>
  /** Records `hash` as the head's last hash (after {@link claim} and {@link insert}). */
  readonly advance: (planId: string, hash: string) => Effect.Effect<void>
  /** The events of a chain, by step_index. */
  readonly list: (planId: string) => Effect.Effect<ReadonlyArray<AuditEventRow>>
  /**
   * The chain's head (`undefined` when the chain never had an event) and its
   * events, read consistently: on PostgreSQL the head row is share-locked
   * first, so an append in flight commits before (and is read) or waits.
   */
  readonly read: (planId: string) => Effect.Effect<{
    readonly head: ChainHead | undefined
    readonly events: ReadonlyArray<AuditEventRow>
  }>
  /** Deletes every event of a chain (its head stays); returns how many. */
  readonly deleteChain: (planId: string) => Effect.Effect<number>
  /** Sets `action` to NULL on the events `ids`; returns how many changed. */
  readonly eraseActions: (ids: ReadonlyArray<number>) => Effect.Effect<number>
  /** Runs `effect` in one transaction (a savepoint inside another). */
  readonly transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /** True when the calling fiber is inside a transaction of this client. */
  readonly inTransaction: Effect.Effect<boolean>
}>()("svc-gateway/audit/AuditRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the audit migrations first. */
  static readonly layer = Layer.effect(
    AuditRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("audit", auditMigrations)
      const slots = findRows(SlotRow)
      const ids = findRows(IdRow)
      const events = findRows(AuditEventRow)

      const claim = (planId: string) =>
        Effect.map(
          slots(sql`INSERT INTO audit_chains (plan_id, last_step_index, last_hash) VALUES (${planId}, 0, NULL)
            ON CONFLICT (plan_id) DO UPDATE SET last_step_index = audit_chains.last_step_index + 1
            RETURNING last_step_index, last_hash`),
          (rows): ChainSlot => ({ step_index: rows[0].last_step_index, prev_hash: rows[0].last_hash })
        )

      const countChanged = (rows: ReadonlyArray<unknown>) => rows.length

      const eraseActions = (targets: ReadonlyArray<number>) =>
        Effect.gen(function*() {
          let changed = 0
          for (let i = 0; i < targets.length; i += CHUNK) {
            const chunk = targets.slice(i, i + CHUNK)
            changed += countChanged(
              yield* sql`UPDATE audit_events SET action = NULL
                WHERE ${sql.in("id", chunk)} AND action IS NOT NULL RETURNING id`
            )
          }
          return changed
        })

      const list = (planId: string) =>
        events(sql`SELECT id, plan_id, step_index, occurred_at, action, action_sha256, prev_hash, event_hash
            FROM audit_events WHERE plan_id = ${planId} ORDER BY step_index`)

      const read = (planId: string) =>
        sql.withTransaction(Effect.gen(function*() {
          const heads = yield* slots(sql.onDialectOrElse({
            pg: () => sql`SELECT last_step_index, last_hash FROM audit_chains WHERE plan_id = ${planId} FOR SHARE`,
            orElse: () => sql`SELECT last_step_index, last_hash FROM audit_chains WHERE plan_id = ${planId}`
          }))
          return { head: heads[0], events: yield* list(planId) }
        }))

      return AuditRepo.of(repositoryEdge("AuditRepo", {
        claim,
        insert: (row) => Effect.map(ids(sql`INSERT INTO audit_events ${sql.insert({ ...row })} RETURNING id`), (rows) => rows[0].id),
        advance: (planId, hash) => Effect.asVoid(sql`UPDATE audit_chains SET last_hash = ${hash} WHERE plan_id = ${planId}`),
        list,
        read,
        deleteChain: (planId) =>
          Effect.map(sql`DELETE FROM audit_events WHERE plan_id = ${planId} RETURNING id`, countChanged),
        eraseActions,
        transaction: transactionAtEdge(sql.withTransaction),
        inTransaction: Effect.map(Effect.serviceOption(sql.transactionService), (open) => open._tag === "Some")
      }))
    })
  )
}
