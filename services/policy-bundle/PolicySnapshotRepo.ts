/**
 * Policy snapshot persistence (table `policy_snapshots`, migrations/): one
 * row per distinct effective bundle, keyed by its canonical SHA-256
 * (reference §1.3). Snapshots are immutable; workflow runs keep a
 * `policy_snapshot_id` and are evaluated against it later.
 *
 * @module
 */
import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { PolicyBundleMigrations } from "./migrations/index.ts"
import { JsonTextColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"

/** A stored snapshot: `bundle_json` is the bundle's canonical JSON; `created_at` ISO-8601 UTC. */
export const PolicySnapshotRow = Schema.Struct({
  policy_snapshot_id: Schema.String,
  sha256: Schema.String,
  bundle_json: JsonTextColumn,
  created_at: TimestampColumn
})
export type PolicySnapshotRow = typeof PolicySnapshotRow.Type

/** Repository of policy snapshots over `SqlClient` (SQLite and PostgreSQL alike). */
export class PolicySnapshotRepo extends Context.Service<PolicySnapshotRepo, {
  /**
   * Stores `row` unless a snapshot with its `sha256` exists (one conditional
   * insert, safe under concurrency), then returns the stored snapshot: the
   * existing one on a duplicate.
   */
  readonly getOrCreate: (row: PolicySnapshotRow) => Effect.Effect<PolicySnapshotRow>
  /** The snapshot `id`, or `undefined`. */
  readonly findById: (id: string) => Effect.Effect<PolicySnapshotRow | undefined>
}>()("svc-gateway/policy-bundle/PolicySnapshotRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the policy-bundle migrations first. */
  static readonly layer = Layer.effect(
    PolicySnapshotRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const insert = SqlSchema.void({
        Request: PolicySnapshotRow,
        execute: (row) => sql`INSERT INTO policy_snapshots ${sql.insert(row)} ON CONFLICT (sha256) DO NOTHING`
      })
      const findBySha = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: PolicySnapshotRow,
        execute: (sha256) => sql`SELECT * FROM policy_snapshots WHERE sha256 = ${sha256}`
      })
      const findById = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: PolicySnapshotRow,
        execute: (id) => sql`SELECT * FROM policy_snapshots WHERE policy_snapshot_id = ${id}`
      })
      // A row that does not decode is corrupt storage, not a client's mistake: a defect.
      return PolicySnapshotRepo.of(repositoryEdge("PolicySnapshotRepo", {
        getOrCreate: (row) =>
          Effect.gen(function*() {
            yield* insert(row)
            const stored = yield* findBySha(row.sha256)
            return Option.getOrElse(stored, () => row)
          }),
        findById: (id) => Effect.map(findById(id), Option.getOrUndefined)
      }))
    })
  ).pipe(Layer.provide(PolicyBundleMigrations))
}
