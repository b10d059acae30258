/**
 * Memory settings (issue 24 §1; layers/settings.ts): semantic search and
 * its embeddings provider (docs/memory.md "Semantic search").
 *
 * @module
 */
import { Option, Redacted, Result } from "effect"
import { Setting } from "../../layers/settings.ts"

/** Accepted values of `SVC_MEMORY_SEMANTIC`. */
export const MEMORY_SEMANTIC_MODES = ["off", "builtin", "openai"] as const
export type MemorySemanticMode = (typeof MEMORY_SEMANTIC_MODES)[number]

/** `SVC_MEMORY_SEMANTIC` and the `SVC_EMBEDDINGS_*` provider settings. */
export const MemorySettings = Setting.group("memory", {
  memorySemantic: Setting.choice({
    env: "SVC_MEMORY_SEMANTIC",
    flag: "memory-semantic",
    values: MEMORY_SEMANTIC_MODES,
    default: "off",
    summary: "Semantic memory search: off, builtin (hashed character 3-grams) or openai (an OpenAI-compatible /embeddings API) (SVC_MEMORY_SEMANTIC)",
    doc:
      "`off`: `memory.search` is keyword search only. `builtin`: items are also embedded by the built-in offline embedder (hashed character 3-grams, 256 dimensions) and searches merge keyword and vector rankings (reciprocal rank fusion). `openai`: the same with an OpenAI-compatible `/embeddings` API (`SVC_EMBEDDINGS_*`). See `docs/memory.md` \"Semantic search\"."
  }),
  memorySemanticMinSimilarity: Setting.integer({
    env: "SVC_MEMORY_SEMANTIC_MIN_SIMILARITY",
    flag: "memory-semantic-min-similarity",
    default: 25,
    min: 0,
    max: 100,
    unit: "percent",
    summary: "Least cosine similarity (in percent) of a semantic memory search hit (SVC_MEMORY_SEMANTIC_MIN_SIMILARITY)",
    doc:
      "A vector hit of `memory.search` needs a cosine similarity of at least this many hundredths to the query (0–100). Nearest-neighbour search returns something for any query; this keeps unrelated items out. 25 suits the built-in embedder; raise it for a sentence-embedding model whose unrelated texts score higher."
  }),
  embeddingsBaseUrl: Setting.text({
    env: "SVC_EMBEDDINGS_BASE_URL",
    flag: "embeddings-base-url",
    default: "https://api.openai.com/v1",
    summary: "Base URL of the OpenAI-compatible embeddings API; requests go to <url>/embeddings (SVC_EMBEDDINGS_BASE_URL)",
    doc: "Base URL of the OpenAI-compatible API `SVC_MEMORY_SEMANTIC=openai` uses: requests go to `<url>/embeddings`.",
    resolve: (raw) =>
      /^https?:\/\/\S+$/i.test(raw.trim()) && URL.canParse(raw.trim())
        ? Result.succeed(raw.trim())
        : Result.fail("SVC_EMBEDDINGS_BASE_URL / --embeddings-base-url must be an http:// or https:// URL")
  }),
  embeddingsModel: Setting.text({
    env: "SVC_EMBEDDINGS_MODEL",
    flag: "embeddings-model",
    default: "text-embedding-3-small",
    summary: "Embedding model asked of the embeddings API (SVC_EMBEDDINGS_MODEL)",
    doc: "The `model` of the `/embeddings` requests. Changing it re-embeds every item (vectors of another model are not compared).",
    resolve: (raw) =>
      raw.trim() === "" ? Result.fail("SVC_EMBEDDINGS_MODEL / --embeddings-model must not be empty") : Result.succeed(raw.trim())
  }),
  embeddingsApiKey: Setting.secret({
    env: "SVC_EMBEDDINGS_API_KEY",
    flag: "embeddings-api-key",
    unset: "unset: no Authorization header",
    summary: "API key of the embeddings API, sent as a Bearer token (SVC_EMBEDDINGS_API_KEY)",
    doc: "Sent as `Authorization: Bearer <key>` to the embeddings API; unset sends none (a local server).",
    resolve: (raw) => {
      const key = Option.getOrUndefined(raw)
      if (key === undefined) return Result.succeed(undefined)
      const trimmed = Redacted.value(key).trim()
      return trimmed.length === 0
        ? Result.fail("SVC_EMBEDDINGS_API_KEY / --embeddings-api-key is set but empty")
        : Result.succeed(Redacted.make(trimmed))
    }
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the memory subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly memory: typeof MemorySettings.settings
  }
}
