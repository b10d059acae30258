/**
 * The built-in embedder (docs/memory.md "Semantic search"): deterministic,
 * offline, no weights. A text becomes the signed feature hash of its
 * character 3-grams in {@link BUILTIN_DIMENSIONS} dimensions, L2-normalised,
 * so texts that share many 3-grams (the same words, their inflections, typos)
 * have a high cosine similarity and unrelated texts one near 0. It knows
 * nothing of meaning (no synonyms); it is for tests, offline use and as a
 * fallback, while an `openai` provider gives real sentence embeddings.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { EmbeddingModel } from "effect/ai"

/** Dimensions of the built-in embedder's vectors. */
export const BUILTIN_DIMENSIONS = 256

/** Identity of the built-in embedder's vector space (stored with each vector). */
export const BUILTIN_MODEL_ID = "builtin:char3-hash-256"

/** FNV-1a, 32 bits. */
const fnv1a = (text: string): number => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/**
 * The built-in embedding of `text`: lower-cased, accents removed, every run
 * of characters other than letters and digits made one space, padded with a
 * space each side; each 3-gram adds ±1 to the dimension its hash selects
 * (the hash's top bit picks the sign); the vector is L2-normalised (all zeros
 * for a text without letters or digits). Length {@link BUILTIN_DIMENSIONS}.
 */
export const ngramEmbedding = (text: string, dimensions: number = BUILTIN_DIMENSIONS): Array<number> => {
  const normal = ` ${
    text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()
  } `
  const vector = new Array<number>(dimensions).fill(0)
  const chars = [...normal]
  for (let i = 0; i + 3 <= chars.length; i++) {
    const hash = fnv1a(chars[i] + chars[i + 1] + chars[i + 2])
    vector[hash % dimensions] += hash & 0x80000000 ? -1 : 1
  }
  const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0))
  return norm === 0 ? vector : vector.map((x) => x / norm)
}

/** The built-in embedder as an `EmbeddingModel` (`EmbeddingModel.make`), with its `Dimensions` (256). */
export const BuiltinEmbeddings: Layer.Layer<EmbeddingModel.EmbeddingModel | EmbeddingModel.Dimensions> = Layer.merge(
  Layer.effect(
    EmbeddingModel.EmbeddingModel,
    EmbeddingModel.make({
      embedMany: ({ inputs }) =>
        Effect.succeed({ results: inputs.map((input) => ngramEmbedding(input)), usage: { inputTokens: undefined } })
    })
  ),
  Layer.succeed(EmbeddingModel.Dimensions, BUILTIN_DIMENSIONS)
)
