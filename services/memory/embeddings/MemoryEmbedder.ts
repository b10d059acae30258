/**
 * Which embedder, if any, memory's semantic search uses
 * (`SVC_MEMORY_SEMANTIC`, docs/memory.md "Semantic search"): none (`off`,
 * the default), the built-in hashed 3-gram embedder (`builtin`) or an
 * OpenAI-compatible `/embeddings` API (`openai`, `SVC_EMBEDDINGS_*`). Each
 * active embedder is an `effect/ai` `EmbeddingModel` with the identity of
 * its vector space (`modelId`, stored with the vectors: vectors of another
 * model are never compared) and the least similarity of a hit.
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import { EmbeddingModel } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { GatewayConfig } from "../../../layers/config.ts"
import { BUILTIN_MODEL_ID, BuiltinEmbeddings } from "./builtin.ts"
import { type OpenAiCompatibleConfig, OpenAiCompatibleEmbeddings } from "./openai.ts"

/** An active embedder: the model, its vector space's identity and the least cosine similarity (0..1) of a hit. */
export interface ActiveEmbedder {
  readonly model: EmbeddingModel.EmbeddingModel
  /** `builtin:char3-hash-256`, or `openai-compatible:<model>`. */
  readonly modelId: string
  readonly minSimilarity: number
}

/** Default least similarity of a hit (the built-in embedder's; `SVC_MEMORY_SEMANTIC_MIN_SIMILARITY`). */
export const DEFAULT_MIN_SIMILARITY = 0.25

/** Memory's embedder: `active` is `undefined` when semantic search is off. */
export class MemoryEmbedder extends Context.Service<MemoryEmbedder, {
  readonly active: ActiveEmbedder | undefined
}>()("svc-gateway/memory/MemoryEmbedder") {
  /** Semantic search off. */
  static readonly off: Layer.Layer<MemoryEmbedder> = Layer.succeed(MemoryEmbedder, MemoryEmbedder.of({ active: undefined }))

  /** The `EmbeddingModel` in context as memory's embedder, with the identity of its vectors. */
  static readonly fromModel = (modelId: string, minSimilarity: number = DEFAULT_MIN_SIMILARITY) =>
    Layer.effect(
      MemoryEmbedder,
      Effect.gen(function*() {
        const model = yield* EmbeddingModel.EmbeddingModel
        return MemoryEmbedder.of({ active: { model, modelId, minSimilarity } })
      })
    )

  /** The built-in hashed character 3-gram embedder (`SVC_MEMORY_SEMANTIC=builtin`). */
  static readonly builtin = (minSimilarity: number = DEFAULT_MIN_SIMILARITY): Layer.Layer<MemoryEmbedder> =>
    MemoryEmbedder.fromModel(BUILTIN_MODEL_ID, minSimilarity).pipe(Layer.provide(BuiltinEmbeddings))

  /** An OpenAI-compatible `/embeddings` API over `fetch` (`SVC_MEMORY_SEMANTIC=openai`). */
  static readonly openai = (config: OpenAiCompatibleConfig, minSimilarity: number = DEFAULT_MIN_SIMILARITY): Layer.Layer<MemoryEmbedder> =>
    MemoryEmbedder.fromModel(`openai-compatible:${config.model}`, minSimilarity).pipe(
      Layer.provide(OpenAiCompatibleEmbeddings(config)),
      Layer.provide(FetchHttpClient.layer)
    )

  /** From the settings: `SVC_MEMORY_SEMANTIC`, `SVC_MEMORY_SEMANTIC_MIN_SIMILARITY` and `SVC_EMBEDDINGS_*`. */
  static readonly layerFromSettings: Layer.Layer<MemoryEmbedder, never, GatewayConfig> = Layer.unwrap(
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      const minSimilarity = settings.memorySemanticMinSimilarity / 100
      switch (settings.memorySemantic) {
        case "off":
          return MemoryEmbedder.off
        case "builtin":
          return MemoryEmbedder.builtin(minSimilarity)
        case "openai":
          return MemoryEmbedder.openai({
            baseUrl: settings.embeddingsBaseUrl,
            model: settings.embeddingsModel,
            apiKey: settings.embeddingsApiKey
          }, minSimilarity)
      }
    })
  )
}
