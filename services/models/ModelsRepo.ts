/**
 * The model catalog's storage (tables `models_dev_cache` and
 * `models_dev_refresh_leases`; services/models/migrations): the cached
 * catalog row and the refresh lease. Taking the lease is ONE conditional
 * write (`UPDATE … WHERE lease_key = ? AND lease_until <= now RETURNING`),
 * so of two instances only one gets it, and a holder that died lets go when
 * its lease runs out. Same SQL on SQLite and PostgreSQL; rows decode with
 * `SqlSchema`, a row that does not decode is a defect.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { JsonTextColumn, TimestampColumn } from "../../layers/storage/columns.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { modelsMigrations } from "./migrations/index.ts"

/** The key of the one cache row and of the one lease. */
export const MODELS_DEV_KEY = "models.dev"

/** The cache row (`catalog_json` as stored: JSON text, read without parsing). */
export const ModelsDevCacheRow = Schema.Struct({
  cache_key: Schema.String,
  catalog_json: Schema.NullOr(JsonTextColumn),
  sha256: Schema.NullOr(Schema.String),
  etag: Schema.NullOr(Schema.String),
  fetched_at: Schema.NullOr(TimestampColumn),
  updated_at: Schema.NullOr(TimestampColumn),
  last_error: Schema.NullOr(Schema.String),
  last_attempt_at: Schema.NullOr(TimestampColumn)
})
export type ModelsDevCacheRow = typeof ModelsDevCacheRow.Type

/** The cache row without the catalog (what every read looks at first). */
export type ModelsDevCacheMeta = Omit<ModelsDevCacheRow, "catalog_json">
const MetaRow = ModelsDevCacheRow.mapFields(({ catalog_json: _, ...rest }) => rest)

/** The lease row. */
export const ModelsDevLeaseRow = Schema.Struct({
  lease_key: Schema.String,
  owner: Schema.String,
  lease_until: TimestampColumn
})

/** What a refresh writes: a new catalog (200), a confirmation (304) or a failure. */
export type RefreshOutcome =
  | { readonly _tag: "Updated"; readonly catalogJson: string; readonly sha256: string; readonly etag: string | null; readonly at: string }
  | { readonly _tag: "Unchanged"; readonly etag: string | null; readonly at: string }
  | { readonly _tag: "Failed"; readonly error: string; readonly at: string }

/** Repository of the catalog cache and the refresh lease over `SqlClient`. */
export class ModelsRepo extends Context.Service<ModelsRepo, {
  /** The cache row without its catalog, `undefined` before any refresh was recorded. */
  readonly meta: Effect.Effect<ModelsDevCacheMeta | undefined>
  /** The cached catalog's JSON text and its sha256, `undefined` when none was fetched yet. */
  readonly catalog: Effect.Effect<{ readonly json: string; readonly sha256: string } | undefined>
  /**
   * Records a refresh's outcome: `Updated` replaces the catalog (`updated_at`
   * moves only when its sha256 differs), `Unchanged` confirms it; both set
   * `fetched_at` and clear `last_error`. `Failed` keeps the catalog and sets
   * `last_error`. All set `last_attempt_at`.
   */
  readonly record: (outcome: RefreshOutcome) => Effect.Effect<void>
  /** Takes the refresh lease for `owner` until `until` when it is free or expired at `now` (ISO); true when taken. */
  readonly acquireLease: (owner: string, now: string, until: string) => Effect.Effect<boolean>
  /** Lets go of the lease if `owner` holds it (its end set to `now`). */
  readonly releaseLease: (owner: string, now: string) => Effect.Effect<void>
}>()("svc-gateway/models/ModelsRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the models migrations first. */
  static readonly layer = Layer.effect(
    ModelsRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("models", modelsMigrations)

      const metaRows = findRows(MetaRow)
      const leaseRows = findRows(ModelsDevLeaseRow)
      const catalogRow = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: Schema.Struct({ catalog_json: JsonTextColumn, sha256: Schema.String }),
        execute: (key) =>
          sql`SELECT catalog_json, sha256 FROM models_dev_cache
              WHERE cache_key = ${key} AND catalog_json IS NOT NULL AND sha256 IS NOT NULL`
      })

      const meta = Effect.map(
        metaRows(sql`SELECT cache_key, sha256, etag, fetched_at, updated_at, last_error, last_attempt_at
                     FROM models_dev_cache WHERE cache_key = ${MODELS_DEV_KEY}`),
        (rows) => rows[0]
      )

      const catalog = Effect.map(catalogRow(MODELS_DEV_KEY), (found) =>
        found._tag === "Some" ? { json: found.value.catalog_json, sha256: found.value.sha256 } : undefined)

      const ensureRow = sql`INSERT INTO models_dev_cache (cache_key) VALUES (${MODELS_DEV_KEY}) ON CONFLICT (cache_key) DO NOTHING`

      const record = (outcome: RefreshOutcome) =>
        Effect.andThen(ensureRow, () => {
          switch (outcome._tag) {
            case "Updated":
              return sql`UPDATE models_dev_cache SET
                  updated_at = CASE WHEN sha256 IS NOT NULL AND sha256 = ${outcome.sha256} AND catalog_json IS NOT NULL
                    THEN updated_at ELSE ${outcome.at} END,
                  catalog_json = ${outcome.catalogJson}, sha256 = ${outcome.sha256}, etag = ${outcome.etag},
                  fetched_at = ${outcome.at}, last_error = NULL, last_attempt_at = ${outcome.at}
                WHERE cache_key = ${MODELS_DEV_KEY}`
            case "Unchanged":
              return sql`UPDATE models_dev_cache SET
                  etag = COALESCE(${outcome.etag}, etag), fetched_at = ${outcome.at}, last_error = NULL, last_attempt_at = ${outcome.at}
                WHERE cache_key = ${MODELS_DEV_KEY}`
            case "Failed":
              return sql`UPDATE models_dev_cache SET last_error = ${outcome.error}, last_attempt_at = ${outcome.at}
                WHERE cache_key = ${MODELS_DEV_KEY}`
          }
        }).pipe(Effect.asVoid)

      const acquireLease = (owner: string, now: string, until: string) =>
        Effect.gen(function*() {
          // The row exists from the first attempt on, expired; taking it is the one conditional write below.
          yield* sql`INSERT INTO models_dev_refresh_leases (lease_key, owner, lease_until)
                     VALUES (${MODELS_DEV_KEY}, '', ${new Date(0).toISOString()}) ON CONFLICT (lease_key) DO NOTHING`
          const taken = yield* leaseRows(
            sql`UPDATE models_dev_refresh_leases SET owner = ${owner}, lease_until = ${until}
                WHERE lease_key = ${MODELS_DEV_KEY} AND lease_until <= ${now} RETURNING *`
          )
          return taken.length === 1
        })

      const releaseLease = (owner: string, now: string) =>
        Effect.asVoid(sql`UPDATE models_dev_refresh_leases SET lease_until = ${now}
                          WHERE lease_key = ${MODELS_DEV_KEY} AND owner = ${owner} AND lease_until > ${now}`)

      return ModelsRepo.of(repositoryEdge("ModelsRepo", { meta, catalog, record, acquireLease, releaseLease }))
    })
  )
}
