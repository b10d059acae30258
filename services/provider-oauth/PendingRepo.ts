/**
 * Pending authorizations (table `oauth_pending`, migrations/). Taking a
 * pending authorization is ONE conditional write
 * (`UPDATE … WHERE state = ? AND provider_id = ? AND consumed = 0 AND
 * expires_at > now RETURNING *`): of two callbacks with the same state only
 * one gets the row, and an expired, used or other provider's state gets
 * nothing. Same SQL on SQLite and PostgreSQL.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { migrate } from "../../layers/storage/migrations.ts"
import { providerOAuthMigrations } from "./migrations/index.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"

/** A pending authorization. */
export const PendingRow = Schema.Struct({
  state: Schema.String,
  provider_id: Schema.String,
  agent_id: Schema.String,
  pkce_verifier: Schema.String,
  redirect_uri: Schema.String,
  created_at: Schema.String,
  expires_at: Schema.String
})
export type PendingRow = typeof PendingRow.Type

const StoredRow = Schema.Struct({ ...PendingRow.fields, consumed: Schema.Number, consumed_at: Schema.NullOr(Schema.String) })

/** Repository of pending authorizations over `SqlClient`. */
export class PendingRepo extends Context.Service<PendingRepo, {
  /** Stores a new pending authorization. */
  readonly insert: (row: PendingRow) => Effect.Effect<void>
  /**
   * Takes the pending authorization `state` of `provider` if it is unused and
   * `expires_at > now` (ISO), marking it used; `undefined` otherwise.
   */
  readonly consume: (state: string, provider: string, now: string) => Effect.Effect<PendingRow | undefined>
  /** Deletes every row with `expires_at <= now`, used or not; returns how many. */
  readonly deleteExpired: (now: string) => Effect.Effect<number>
}>()("svc-gateway/provider-oauth/PendingRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the provider-oauth migrations first. */
  static readonly layer = Layer.effect(
    PendingRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("provider_oauth", providerOAuthMigrations)

      const consume = SqlSchema.findOneOption({
        Request: Schema.Struct({ state: Schema.String, provider: Schema.String, now: Schema.String }),
        Result: StoredRow,
        execute: ({ now, provider, state }) =>
          sql`UPDATE oauth_pending SET consumed = 1, consumed_at = ${now}
              WHERE state = ${state} AND provider_id = ${provider} AND consumed = 0 AND expires_at > ${now}
              RETURNING *`
      })

      return PendingRepo.of(repositoryEdge("PendingRepo", {
        insert: (row) => Effect.asVoid(sql`INSERT INTO oauth_pending ${sql.insert({ ...row, consumed: 0 })}`),
        consume: (state, provider, now) =>
          consume({ state, provider, now }).pipe(
            Effect.map((found) => {
              if (found._tag === "None") return undefined
              const { consumed: _c, consumed_at: _a, ...row } = found.value
              return row
            })
          ),
        deleteExpired: (now) =>
          Effect.map(
            sql`DELETE FROM oauth_pending WHERE expires_at <= ${now} RETURNING state`,
            (rows) => rows.length
          )
      }))
    })
  )
}
