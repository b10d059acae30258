/**
 * Routing configuration persistence (table `routing_configs`, migrations/).
 * Append-only: a revision is inserted once and never changed. Rows are read
 * as stored text (`config_json`, `created_by_json`); decoding their content
 * is the service's job, so stored state that does not decode can be reported
 * as `corrupt_state` rather than a crash. A row whose columns do not even
 * have their types is a defect.
 *
 * @module
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { migrate } from "../../layers/storage/migrations.ts"
import { routingMigrations } from "./migrations/index.ts"
import { JsonTextColumn, serialColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"

/** A stored revision, as text. */
export const RoutingConfigRow = Schema.Struct({
  revision: serialColumn(Schema.Int),
  config_json: JsonTextColumn,
  created_at: TimestampColumn,
  created_by_json: JsonTextColumn,
  reason: Schema.NullOr(Schema.String),
  reverted_from_revision: Schema.NullOr(Schema.Int)
})
export type RoutingConfigRow = typeof RoutingConfigRow.Type

/** A revision to append; the database assigns `revision`. */
export type NewRoutingConfigRow = Omit<RoutingConfigRow, "revision">

/** Repository of routing configuration revisions over `SqlClient`. */
export class RoutingConfigRepo extends Context.Service<RoutingConfigRepo, {
  /** Appends a revision; the stored row, with its new `revision`. */
  readonly append: (row: NewRoutingConfigRow) => Effect.Effect<RoutingConfigRow>
  /** The highest revision, if any. */
  readonly latest: Effect.Effect<RoutingConfigRow | undefined>
  /** The revision numbered `revision`, if stored. */
  readonly get: (revision: number) => Effect.Effect<RoutingConfigRow | undefined>
}>()("svc-gateway/routing/RoutingConfigRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the routing migrations first. */
  static readonly layer = Layer.effect(
    RoutingConfigRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("routing", routingMigrations)

      const append = SqlSchema.findOne({
        Request: RoutingConfigRow.mapFields(({ revision: _, ...fields }) => fields),
        Result: RoutingConfigRow,
        execute: (row) => sql`INSERT INTO routing_configs ${sql.insert(row)} RETURNING *`
      })
      const latest = SqlSchema.findOneOption({
        Request: Schema.Void,
        Result: RoutingConfigRow,
        execute: () => sql`SELECT * FROM routing_configs ORDER BY revision DESC LIMIT 1`
      })
      const get = SqlSchema.findOneOption({
        Request: Schema.Int,
        Result: RoutingConfigRow,
        execute: (revision) => sql`SELECT * FROM routing_configs WHERE revision = ${revision}`
      })

      return RoutingConfigRepo.of(repositoryEdge("RoutingConfigRepo", {
        append: (row) => Effect.catchTag(append(row), "NoSuchElementError", Effect.die),
        latest: Effect.map(latest(undefined), Option.getOrUndefined),
        get: (revision) => Effect.map(get(revision), Option.getOrUndefined)
      }))
    })
  )
}
