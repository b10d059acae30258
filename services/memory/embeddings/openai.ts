/**
 * An OpenAI-compatible embeddings provider (docs/memory.md "Semantic
 * search"): `EmbeddingModel.make` over Effect's `HttpClient`, one
 * `POST <base>/embeddings` per batch with `{model, input: [texts],
 * encoding_format: "float", dimensions?}` and `Authorization: Bearer <key>`
 * when a key is set. The answer `{data: [{embedding, index}], model, usage}`
 * is put back in input order by `index`. Works with OpenAI and the servers
 * that copy its API (Azure-style gateways, Ollama, vLLM, LM Studio, …).
 *
 * Failures are `AiError`s of module `OpenAiCompatibleEmbeddings`: a
 * transport failure or no answer within the timeout (30 s) is a `NetworkError`, a status outside 2xx the reason
 * `AiError.reasonFromHttpStatus` gives (401 `AuthenticationError`, 429
 * `RateLimitError`, 5xx `InternalProviderError`, …) with the provider's
 * error message, and a body that is not the wire shape (or holds a vector
 * that is missing or of another length) an `InvalidOutputError`.
 *
 * @module
 */
import { Duration, Effect, Layer, Redacted, Schema } from "effect"
import { AiError, EmbeddingModel } from "effect/ai"
import { HttpClient, HttpClientRequest } from "effect/http"

/** Settings of the provider. */
export interface OpenAiCompatibleConfig {
  /** The API's base URL, without `/embeddings` (e.g. `https://api.openai.com/v1`); a trailing `/` is ignored. */
  readonly baseUrl: string
  /** The model to ask for (e.g. `text-embedding-3-small`). */
  readonly model: string
  /** The API key (`Authorization: Bearer`); none sends no header (local servers). */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** Asks the model for vectors of this length (`dimensions`), when set. */
  readonly dimensions?: number | undefined
  /** How long one request may take before it fails as a `NetworkError` (default 30 s). */
  readonly timeout?: Duration.Input | undefined
}

/** The answer of `POST /embeddings` (extra fields ignored). */
const EmbeddingsResponse = Schema.Struct({
  data: Schema.Array(Schema.Struct({ embedding: Schema.Array(Schema.Finite), index: Schema.Int })),
  model: Schema.optional(Schema.String),
  usage: Schema.optional(Schema.Struct({ prompt_tokens: Schema.optional(Schema.Number) }))
})

const MODULE = "OpenAiCompatibleEmbeddings"
const fail = (reason: AiError.AiErrorReason) => Effect.fail(AiError.make({ module: MODULE, method: "embedMany", reason }))
const invalid = (description: string) => fail(new AiError.InvalidOutputError({ description }))

/** The provider's message in an error body (`{error: {message}}` or `{error: "…"}`), at most 300 characters. */
const errorMessage = (body: unknown): string | undefined => {
  const error = (body as { error?: unknown } | null)?.error
  const message = typeof error === "string" ? error : (error as { message?: unknown } | null)?.message
  return typeof message === "string" ? message.slice(0, 300) : undefined
}

/** The `EmbeddingModel` of an OpenAI-compatible `/embeddings` endpoint; needs an `HttpClient`. */
export const makeOpenAiCompatible = (config: OpenAiCompatibleConfig) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    const url = `${config.baseUrl.replace(/\/+$/, "")}/embeddings`
    const decode = Schema.decodeUnknownEffect(EmbeddingsResponse)
    return yield* EmbeddingModel.make({
      embedMany: Effect.fn("OpenAiCompatibleEmbeddings.embedMany")(function*({ inputs }) {
        const request = HttpClientRequest.post(url).pipe(
          HttpClientRequest.acceptJson,
          config.apiKey === undefined ? (r) => r : HttpClientRequest.bearerToken(Redacted.value(config.apiKey)),
          HttpClientRequest.bodyJsonUnsafe({
            model: config.model,
            input: inputs,
            encoding_format: "float",
            ...(config.dimensions !== undefined ? { dimensions: config.dimensions } : {})
          })
        )
        const timeout = config.timeout ?? "30 seconds"
        const response = yield* http.execute(request).pipe(
          Effect.catch((error) =>
            "response" in error.reason
              ? fail(new AiError.NetworkError({ reason: "TransportError", method: "POST", url, description: error.message }))
              : fail(AiError.NetworkError.fromRequestError(error.reason))
          ),
          Effect.timeoutOrElse({
            duration: timeout,
            orElse: () =>
              fail(new AiError.NetworkError({
                reason: "TransportError",
                method: "POST",
                url,
                description: `no answer within ${Duration.format(Duration.fromInputUnsafe(timeout))}`
              }))
          })
        )
        const body: unknown = yield* response.json.pipe(Effect.orElseSucceed(() => undefined))
        if (response.status < 200 || response.status >= 300) {
          const message = errorMessage(body)
          return yield* fail(AiError.reasonFromHttpStatus({
            status: response.status,
            body,
            description: `the embeddings endpoint answered status ${response.status}${message !== undefined ? `: ${message}` : ""}`
          }))
        }
        const decoded = yield* decode(body).pipe(
          Effect.catch(() => invalid("the embeddings answer is not {data: [{embedding, index}]}"))
        )
        const results = new Array<Array<number>>(inputs.length)
        for (const { embedding, index } of decoded.data) {
          if (index >= 0 && index < inputs.length) results[index] = [...embedding]
        }
        const length = results[0]?.length
        for (let i = 0; i < inputs.length; i++) {
          if (results[i] === undefined) return yield* invalid(`the embeddings answer has no vector for input ${i}`)
          if (results[i].length === 0 || results[i].length !== length) {
            return yield* invalid("the embeddings answer holds vectors of different lengths")
          }
        }
        return { results, usage: { inputTokens: decoded.usage?.prompt_tokens } }
      })
    })
  })

/** {@link makeOpenAiCompatible} as a layer (with `Dimensions` when `config.dimensions` is set); needs an `HttpClient`. */
export const OpenAiCompatibleEmbeddings = (config: OpenAiCompatibleConfig) =>
  Layer.effect(EmbeddingModel.EmbeddingModel, makeOpenAiCompatible(config))
