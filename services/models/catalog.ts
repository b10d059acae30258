/**
 * The model catalog as data (docs/models.md): decoding a models.dev
 * `api.json` body, the bundled snapshot shipped in the package
 * (`services/models/catalog.bundled.json`, rewritten by
 * `scripts/refresh-models.mjs`), the built-in provider every catalog served
 * carries, counts, summaries and prices. Pure functions, apart from reading
 * the bundled file.
 *
 * @module
 */
import { Effect, FileSystem, Option, Path, Result } from "effect"
import { findPackageRoot } from "../shared/packageRoot.ts"
import { makeDecoder, parseJsonBody } from "../shared/decode.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { Catalog, type CatalogModel, type CatalogProvider, type ModelCost, type ProviderSummary } from "./schema.ts"

/** The bundled snapshot's path inside the package root (listed in package.json `files`). */
export const BUNDLED_CATALOG_PATH = ["services", "models", "catalog.bundled.json"] as const

/** The id of the gateway's own providers (`builtin/echo`, `builtin/scripted`): no network, no credentials, cost 0. */
export const BUILTIN_PROVIDER_ID = "builtin"

/**
 * The built-in provider, as the bundled snapshot has it too. Every catalog
 * served carries it (models.dev does not know it), so `builtin/*` always
 * resolves and prices at 0.
 */
export const BUILTIN_PROVIDER: CatalogProvider = {
  id: BUILTIN_PROVIDER_ID,
  name: "Built-in (offline)",
  npm: "svc-gateway",
  env: [],
  doc: "docs/agent.md",
  models: {
    echo: {
      id: "echo",
      name: "Echo (answers with the user's message)",
      attachment: false,
      reasoning: false,
      tool_call: false,
      temperature: false,
      modalities: { input: ["text"], output: ["text"] },
      cost: { input: 0, output: 0 },
      limit: { context: 128_000, output: 8_192 }
    },
    scripted: {
      id: "scripted",
      name: "Scripted (answers from the agent's script.yml)",
      attachment: false,
      reasoning: false,
      tool_call: true,
      temperature: false,
      modalities: { input: ["text"], output: ["text"] },
      cost: { input: 0, output: 0 },
      limit: { context: 128_000, output: 8_192 }
    }
  }
}

const decodeCatalog = makeDecoder(Catalog, { label: "api.json" })

/**
 * Decodes a catalog from JSON text: the models.dev `api.json` shape, only the
 * fields the gateway keeps (others are dropped). The failure is one line
 * naming the first problem (`api.json.openai.models.x.limit: …`).
 */
export const parseCatalog = (text: string): Result.Result<Catalog, string> =>
  Result.flatMap(
    Result.mapError(parseJsonBody(text), (problem) => (problem === "request body is empty" ? "api.json is empty" : `api.json: ${problem}`)),
    decodeCatalog
  )

/** `catalog` with the built-in provider added when it lacks one. */
export const withBuiltin = (catalog: Catalog): Catalog =>
  catalog[BUILTIN_PROVIDER_ID] === undefined ? { ...catalog, [BUILTIN_PROVIDER_ID]: BUILTIN_PROVIDER } : catalog

/** How many providers and models `catalog` has. */
export const countsOf = (catalog: Catalog): { readonly provider_count: number; readonly model_count: number } => {
  const providers = Object.values(catalog)
  return {
    provider_count: providers.length,
    model_count: providers.reduce((n, p) => n + Object.keys(p.models).length, 0)
  }
}

/** A provider's summary (`npm`, `api`, `doc` `null` when absent). */
export const summaryOf = (provider: CatalogProvider): ProviderSummary => ({
  id: provider.id,
  name: provider.name,
  npm: provider.npm ?? null,
  api: provider.api ?? null,
  env: provider.env,
  doc: provider.doc ?? null,
  model_count: Object.keys(provider.models).length
})

/** The providers' summaries, by id. */
export const summaries = (catalog: Catalog): ReadonlyArray<ProviderSummary> =>
  Object.values(catalog).map(summaryOf).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

/** A provider's models, by id. */
export const modelsOf = (provider: CatalogProvider): ReadonlyArray<CatalogModel> =>
  Object.values(provider.models).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

/**
 * Splits a model reference `provider/model` at its first `/` (model ids may
 * hold more: `openrouter/anthropic/claude-sonnet-4`); `undefined` without a
 * `/` or with an empty part.
 */
export const splitModelRef = (ref: string): { readonly provider: string; readonly model: string } | undefined => {
  const at = ref.indexOf("/")
  if (at <= 0 || at === ref.length - 1) return undefined
  return { provider: ref.slice(0, at), model: ref.slice(at + 1) }
}

/**
 * The cost of a call in millionths of a US dollar (the `usd_micros` of usage
 * records): prices are USD per 1M tokens, so tokens × price is micro-dollars
 * exactly; rounded to an integer.
 */
export const usdMicros = (price: ModelCost, usage: { readonly input_tokens: number; readonly output_tokens: number }): number =>
  Math.round(usage.input_tokens * price.input + usage.output_tokens * price.output)

/** The bundled snapshot, decoded, with the sha256 of the file's text. */
export interface BundledCatalog {
  readonly catalog: Catalog
  readonly sha256: string | null
}

/**
 * Reads the bundled snapshot from the package root. When the package root
 * or the file cannot be found or read (the gateway bundled into another
 * program) or does not decode, the catalog is the built-in provider alone
 * (`sha256` null) and a warning is logged: the gateway still starts.
 */
export const loadBundledCatalog: Effect.Effect<BundledCatalog, never, FileSystem.FileSystem | Path.Path> = Effect.gen(function*() {
  const fs = yield* FileSystem.FileSystem
  const path = yield* Path.Path
  const root = yield* findPackageRoot(new URL(import.meta.url))
  const fallback = (reason: string) =>
    Effect.as(
      Effect.logWarning("bundled model catalog unavailable; serving the built-in provider only").pipe(Effect.annotateLogs({ reason })),
      { catalog: withBuiltin({}), sha256: null }
    )
  if (Option.isNone(root)) return yield* fallback("svc-gateway package root not found")
  const file = path.join(root.value, ...BUNDLED_CATALOG_PATH)
  const text = yield* Effect.option(fs.readFileString(file))
  if (Option.isNone(text)) return yield* fallback(`cannot read ${file}`)
  const parsed = parseCatalog(text.value)
  if (Result.isFailure(parsed)) return yield* fallback(`${file}: ${parsed.failure}`)
  return { catalog: withBuiltin(parsed.success), sha256: sha256Hex(text.value) }
})
