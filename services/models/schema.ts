/**
 * The model catalog's schemas (issue 25 §5; gateway-api.md "Model catalog";
 * reference §7.6; docs/models.md): the models.dev `api.json` shape the
 * gateway reads (only the fields it uses; every other field of a remote
 * catalog is dropped when it is decoded), the status object and the answers
 * of `/models/*`.
 *
 * Prices are USD per 1 million tokens (models.dev's unit); limits are tokens.
 *
 * @module
 */
import { Schema } from "effect"

const NonNegative = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number" }))

/** A model's prices in USD per 1M tokens: `input`, `output`, and when known `cache_read` / `cache_write`. */
export const ModelCost = Schema.Struct({
  input: NonNegative,
  output: NonNegative,
  cache_read: Schema.optionalKey(NonNegative),
  cache_write: Schema.optionalKey(NonNegative)
})
export type ModelCost = typeof ModelCost.Type

/** A model's token limits: the context window and the largest answer. */
export const ModelLimit = Schema.Struct({ context: NonNegative, output: NonNegative })
export type ModelLimit = typeof ModelLimit.Type

/** Input and output modalities (`text`, `image`, `pdf`, `audio`, …). */
export const ModelModalities = Schema.Struct({ input: Schema.Array(Schema.String), output: Schema.Array(Schema.String) })

/** One model of a provider, as models.dev describes it (the fields the gateway keeps). */
export const CatalogModel = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  family: Schema.optionalKey(Schema.String),
  attachment: Schema.optionalKey(Schema.Boolean),
  reasoning: Schema.optionalKey(Schema.Boolean),
  tool_call: Schema.optionalKey(Schema.Boolean),
  temperature: Schema.optionalKey(Schema.Boolean),
  release_date: Schema.optionalKey(Schema.String),
  last_updated: Schema.optionalKey(Schema.String),
  modalities: Schema.optionalKey(ModelModalities),
  cost: Schema.optionalKey(ModelCost),
  limit: ModelLimit
})
export type CatalogModel = typeof CatalogModel.Type

/** One provider: its id, name, ai-sdk `npm` package, base URL `api` (OpenAI-compatible ones), credential `env` names, `doc` URL and models by id. */
export const CatalogProvider = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  npm: Schema.optionalKey(Schema.String),
  api: Schema.optionalKey(Schema.String),
  env: Schema.Array(Schema.String),
  doc: Schema.optionalKey(Schema.String),
  models: Schema.Record(Schema.String, CatalogModel)
})
export type CatalogProvider = typeof CatalogProvider.Type

/** A whole catalog: providers by id (models.dev's `api.json`). */
export const Catalog = Schema.Record(Schema.String, CatalogProvider)
export type Catalog = typeof Catalog.Type

/** Where the catalog in use comes from (docs/models.md "Status"). */
export const CatalogSource = Schema.Literals(["remote", "cache", "bundled"])
export type CatalogSource = typeof CatalogSource.Type

/**
 * The catalog's status (reference §7.6): `source`; `fetched_at` (the last
 * time models.dev answered a refresh, 200 or 304), `updated_at` (the last
 * time the cached catalog changed), `etag` (models.dev's, sent back as
 * `If-None-Match`) and `sha256` (of the catalog as fetched, or of the bundled
 * file) — `null` when unknown; the provider and model counts of the catalog
 * served (the built-in provider included); `last_error`, the last refresh's
 * failure (`null` after a success).
 */
export const ModelsDevStatus = Schema.Struct({
  source: CatalogSource,
  fetched_at: Schema.NullOr(Schema.String),
  updated_at: Schema.NullOr(Schema.String),
  etag: Schema.NullOr(Schema.String),
  sha256: Schema.NullOr(Schema.String),
  provider_count: Schema.Int,
  model_count: Schema.Int,
  last_error: Schema.NullOr(Schema.String)
})
export type ModelsDevStatus = typeof ModelsDevStatus.Type

/** `GET /models/status`, `POST /models/refresh`: `{status: "ok", models_dev}`. */
export const ModelsStatusResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  models_dev: ModelsDevStatus
})
export type ModelsStatusResponse = typeof ModelsStatusResponse.Type

/** A provider in the listing: `npm`, `api` and `doc` are `null` when the catalog has none. */
export const ProviderSummary = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  npm: Schema.NullOr(Schema.String),
  api: Schema.NullOr(Schema.String),
  env: Schema.Array(Schema.String),
  doc: Schema.NullOr(Schema.String),
  model_count: Schema.Int
})
export type ProviderSummary = typeof ProviderSummary.Type

/** `GET /models/providers`: every provider, by id. */
export const ProvidersResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  models_dev: ModelsDevStatus,
  providers: Schema.Array(ProviderSummary)
})
export type ProvidersResponse = typeof ProvidersResponse.Type

/** `GET /models/providers/:id`: the provider as the catalog has it, its models by id. */
export const ProviderResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  models_dev: ModelsDevStatus,
  provider: CatalogProvider
})
export type ProviderResponse = typeof ProviderResponse.Type

/** `GET /models/providers/:id/models`: the provider's summary and its models, by id. */
export const ProviderModelsResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  models_dev: ModelsDevStatus,
  provider: ProviderSummary,
  models: Schema.Array(CatalogModel)
})
export type ProviderModelsResponse = typeof ProviderModelsResponse.Type

/** The `:id` of a provider route (models.dev ids: lowercase letters, digits, `-`, `_`, `.`; checked loosely). */
export const ProviderParams = {
  id: Schema.String.check(
    Schema.isMinLength(1, { expected: "a provider id" }),
    Schema.isMaxLength(128, { expected: "a provider id of at most 128 characters" })
  )
}
