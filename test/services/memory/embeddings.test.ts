/**
 * Memory's embedders (services/memory/embeddings/): the built-in hashed
 * 3-gram embedder (deterministic, 256 dimensions, L2-normalised, similar
 * spellings close and unrelated texts far), and the OpenAI-compatible
 * `/embeddings` provider against a local HTTP server this test starts: the
 * request it sends (path, model, inputs, bearer key), the answer put back in
 * input order by `index`, single `embed` calls batched, and provider errors
 * (status with the provider's message, a body of the wrong shape, a missing
 * vector, a refused connection) as `AiError`s.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, Redacted } from "effect"
import { TestClock } from "effect/testing"
import { EmbeddingModel } from "effect/ai"
import { FetchHttpClient } from "effect/http"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { BUILTIN_DIMENSIONS, BuiltinEmbeddings, ngramEmbedding } from "../../../services/memory/embeddings/builtin.ts"
import { MemoryEmbedder } from "../../../services/memory/embeddings/MemoryEmbedder.ts"
import { OpenAiCompatibleEmbeddings } from "../../../services/memory/embeddings/openai.ts"

const activeOf = Effect.gen(function*() {
  return yield* MemoryEmbedder
})
const cosine = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => a.reduce((sum, x, i) => sum + x * b[i], 0)

describe("built-in embedder", () => {
  it("is deterministic, 256 dimensions, L2-normalised; close for shared 3-grams, far for unrelated text", () => {
    const a = ngramEmbedding("Kubernetes upgrade")
    expect(a).toHaveLength(BUILTIN_DIMENSIONS)
    expect(ngramEmbedding("Kubernetes upgrade")).toEqual(a)
    expect(Math.abs(cosine(a, a) - 1)).toBeLessThan(1e-9)
    expect(cosine(ngramEmbedding("KUBERNETES, upgrade!"), a)).toBeCloseTo(1, 9)
    expect(cosine(ngramEmbedding("kubernets upgrades"), a)).toBeGreaterThan(0.5)
    expect(Math.abs(cosine(ngramEmbedding("garden roses"), a))).toBeLessThan(0.15)
    expect(ngramEmbedding("***").every((x) => x === 0)).toBe(true)
  })

  it.effect("is an EmbeddingModel (embed and embedMany) with Dimensions 256", () =>
    Effect.gen(function*() {
      const model = yield* EmbeddingModel.EmbeddingModel
      expect(yield* EmbeddingModel.Dimensions).toBe(256)
      const [one, many] = yield* Effect.all([model.embed("alpha"), model.embedMany(["alpha", "beta"])])
      expect(one.vector).toEqual(ngramEmbedding("alpha"))
      expect(many.embeddings.map((e) => e.vector)).toEqual([ngramEmbedding("alpha"), ngramEmbedding("beta")])
    }).pipe(Effect.provide(BuiltinEmbeddings)))
})

// --- the fake embeddings server -------------------------------------------------------------------------------------

type Mode = "ok" | "unauthorized" | "overloaded" | "garbage" | "missing" | "hang"
interface Call {
  readonly method: string
  readonly path: string
  readonly authorization: string | undefined
  readonly body: { model: string; input: Array<string>; encoding_format?: string }
}
let server: Server
let baseUrl: string
let mode: Mode = "ok"
const calls: Array<Call> = []
/** Answers held back by the "hang" mode, ended by the test. */
const held: Array<() => void> = []

beforeAll(() =>
  new Promise<void>((resolve) => {
    server = createServer((req, res) => {
      let text = ""
      req.on("data", (chunk) => (text += chunk))
      req.on("end", () => {
        const body = JSON.parse(text)
        calls.push({ method: req.method ?? "", path: req.url ?? "", authorization: req.headers.authorization, body })
        const send = (status: number, json: unknown) => {
          res.writeHead(status, { "content-type": "application/json" })
          res.end(typeof json === "string" ? json : JSON.stringify(json))
        }
        const inputs: Array<string> = body.input
        // answered in reverse order: the client must put them back by `index`
        const data = inputs.map((input, index) => ({ object: "embedding", index, embedding: [input.length, index, 1] })).reverse()
        switch (mode) {
          case "ok":
            return send(200, { object: "list", data, model: body.model, usage: { prompt_tokens: 7, total_tokens: 7 } })
          case "unauthorized":
            return send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } })
          case "overloaded":
            return send(503, { error: { message: "The server is overloaded" } })
          case "garbage":
            return send(200, "<html>not json</html>")
          case "missing":
            return send(200, { data: data.slice(1), model: body.model })
          case "hang":
            return void held.push(() => send(200, { data, model: body.model }))
        }
      })
    })
    server.listen(0, "127.0.0.1", () => {
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`
      resolve()
    })
  }))
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const provider = (apiKey: string | null = "sk-test") =>
  OpenAiCompatibleEmbeddings({ baseUrl, model: "text-embedding-test", apiKey: apiKey === null ? undefined : Redacted.make(apiKey) })
    .pipe(Layer.provide(FetchHttpClient.layer))

const failureOf = (effect: Effect.Effect<unknown, unknown, EmbeddingModel.EmbeddingModel>, layer = provider()) =>
  Effect.flip(effect).pipe(Effect.provide(layer), Effect.map((e: any) => ({ tag: e.reason._tag, message: String(e.message) })))

describe("OpenAI-compatible embeddings provider", () => {
  it.effect("posts {model, input, encoding_format} to <base>/embeddings with the bearer key, and reorders by index", () =>
    Effect.gen(function*() {
      mode = "ok"
      calls.length = 0
      const model = yield* EmbeddingModel.EmbeddingModel
      const many = yield* model.embedMany(["a", "bb", "ccc"])
      expect(many.embeddings.map((e) => e.vector)).toEqual([[1, 0, 1], [2, 1, 1], [3, 2, 1]])
      expect(many.usage.inputTokens).toBe(7)
      expect(calls).toEqual([{
        method: "POST",
        path: "/v1/embeddings",
        authorization: "Bearer sk-test",
        body: { model: "text-embedding-test", input: ["a", "bb", "ccc"], encoding_format: "float" }
      }])
      // concurrent single embeds share one request
      calls.length = 0
      const singles = yield* Effect.all([model.embed("xy"), model.embed("xyz")], { concurrency: "unbounded" })
      expect(singles.map((s) => s.vector[0])).toEqual([2, 3])
      expect(calls).toHaveLength(1)
      expect(calls[0].body.input).toEqual(["xy", "xyz"])
    }).pipe(Effect.provide(provider())))

  it.effect("sends no Authorization header without a key", () =>
    Effect.gen(function*() {
      mode = "ok"
      calls.length = 0
      yield* (yield* EmbeddingModel.EmbeddingModel).embedMany(["a"])
      expect(calls[0].authorization).toBeUndefined()
    }).pipe(Effect.provide(provider(null))))

  it.effect("turns provider errors into AiErrors with the provider's message", () =>
    Effect.gen(function*() {
      const embed = Effect.gen(function*() {
        return yield* (yield* EmbeddingModel.EmbeddingModel).embedMany(["a", "b"])
      })
      mode = "unauthorized"
      expect(yield* failureOf(embed)).toMatchObject({ tag: "AuthenticationError" })
      expect((yield* failureOf(embed)).message).toContain("status 401: Incorrect API key provided")
      mode = "overloaded"
      expect(yield* failureOf(embed)).toMatchObject({ tag: "InternalProviderError" })
      mode = "garbage"
      expect(yield* failureOf(embed)).toMatchObject({ tag: "InvalidOutputError" })
      mode = "missing"
      const missing = yield* failureOf(embed)
      expect(missing.tag).toBe("InvalidOutputError")
      expect(missing.message).toContain("no vector for input")
      const refused = OpenAiCompatibleEmbeddings({ baseUrl: "http://127.0.0.1:1/v1", model: "m" }).pipe(Layer.provide(FetchHttpClient.layer))
      expect(yield* failureOf(embed, refused)).toMatchObject({ tag: "NetworkError" })
    }))

  it.effect("fails as a NetworkError when the provider does not answer within the timeout", () =>
    Effect.gen(function*() {
      mode = "hang"
      const model = yield* EmbeddingModel.EmbeddingModel
      const fiber = yield* Effect.forkChild(Effect.flip(model.embedMany(["a"])))
      yield* Effect.promise(() => new Promise<void>((resolve) => {
        const wait = () => (held.length > 0 ? resolve() : setTimeout(wait, 5))
        wait()
      }))
      yield* TestClock.adjust("2 seconds")
      const error: any = yield* Fiber.join(fiber)
      expect(error.reason._tag).toBe("NetworkError")
      expect(error.message).toContain("no answer within 2s")
      held.splice(0).forEach((end) => end())
      mode = "ok"
    }).pipe(Effect.provide(
      OpenAiCompatibleEmbeddings({ baseUrl, model: "m", timeout: "2 seconds" }).pipe(Layer.provide(FetchHttpClient.layer))
    )))

  it.effect("MemoryEmbedder names its vector space and is off by default", () =>
    Effect.gen(function*() {
      const off = yield* Effect.provide(activeOf, MemoryEmbedder.off)
      expect(off.active).toBeUndefined()
      const builtin = yield* Effect.provide(activeOf, MemoryEmbedder.builtin())
      expect(builtin.active).toMatchObject({ modelId: "builtin:char3-hash-256", minSimilarity: 0.25 })
      const openai = yield* Effect.provide(activeOf, MemoryEmbedder.openai({ baseUrl, model: "text-embedding-test" }, 0.4))
      expect(openai.active).toMatchObject({ modelId: "openai-compatible:text-embedding-test", minSimilarity: 0.4 })
    }))
})
