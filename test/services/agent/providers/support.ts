/** Helpers of the provider tests: a local server speaking a provider's wire shape, recording each request. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, Redacted, Schema } from "effect"
import { type LanguageModel, Tool, Toolkit } from "effect/ai"
import { FetchHttpClient, type HttpClient } from "effect/http"
import { AgentRuntimeError } from "../../../../services/agent/providers/errors.ts"

/** One request the server received: path, headers and parsed JSON body. */
export interface SeenRequest {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: any
}

/** What the server answers to one request: JSON with a status, server-sent events (then the end, or silence), or nothing (never answers). */
export type Answer =
  | { readonly status?: number; readonly json: unknown }
  | { readonly sse: ReadonlyArray<{ readonly event?: string; readonly data: unknown }>; readonly thenHang?: boolean }
  | { readonly hang: true }

/**
 * A local server on 127.0.0.1:0 (closed with the scope): the `n`th request
 * gets `answers[n]` (the last one again when exhausted); `seen` lists the
 * requests. `url` is the base URL (no trailing slash).
 */
export const wireServer = (answers: ReadonlyArray<Answer>) =>
  Effect.acquireRelease(
    Effect.promise(() =>
      new Promise<{ server: http.Server; url: string; seen: Array<SeenRequest> }>((resolve) => {
        const seen: Array<SeenRequest> = []
        const server = http.createServer((req, res) => {
          let text = ""
          req.on("data", (chunk) => (text += chunk))
          req.on("end", () => {
            seen.push({ path: req.url ?? "", headers: req.headers, body: text.length > 0 ? JSON.parse(text) : undefined })
            const answer = answers[Math.min(seen.length - 1, answers.length - 1)]!
            if ("hang" in answer) return
            if ("json" in answer) {
              res.writeHead(answer.status ?? 200, { "content-type": "application/json" })
              res.end(typeof answer.json === "string" ? answer.json : JSON.stringify(answer.json))
              return
            }
            res.writeHead(200, { "content-type": "text/event-stream" })
            for (const event of answer.sse) {
              const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data)
              res.write(`${event.event !== undefined ? `event: ${event.event}\n` : ""}data: ${data}\n\n`)
            }
            if (answer.thenHang !== true) res.end()
          })
        })
        server.listen(0, "127.0.0.1", () => {
          const { port } = server.address() as AddressInfo
          resolve({ server, url: `http://127.0.0.1:${port}/v1`, seen })
        })
      })
    ),
    ({ server }) =>
      Effect.promise(() =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
      )
  )

/** A tool the tests' models call: `get_weather {city}` → `{city, forecast}`. */
export const GetWeather = Tool.make("get_weather", {
  description: "The weather in a city",
  parameters: Schema.Struct({ city: Schema.String }),
  success: Schema.Struct({ city: Schema.String, forecast: Schema.String })
})

export const WeatherToolkit = Toolkit.make(GetWeather)

/** The toolkit's handlers; `calls` lists the cities asked for. */
export const weatherHandlers = () => {
  const calls: Array<string> = []
  const layer = WeatherToolkit.toLayer({
    get_weather: ({ city }) =>
      Effect.sync(() => {
        calls.push(city)
        return { city, forecast: "sunny" }
      })
  })
  return { calls, layer }
}

/** The API key the tests configure; asserted absent from every error. */
export const API_KEY = "sk-test-SECRET-0123456789"

/** A provider layer factory (`OpenAi.layer`, `Anthropic.layer`). */
type ProviderLayer = (config: {
  readonly baseUrl: string
  readonly apiKey: Redacted.Redacted<string>
  readonly model: string
  readonly timeout: number
}) => Layer.Layer<LanguageModel.LanguageModel, never, HttpClient.HttpClient>

/**
 * `withModel(answers, body, timeout?)` for one provider: runs `body` with the provider's model (`model`, the test key,
 * `timeout` ms, default 5 s) pointed at a {@link wireServer} giving `answers`.
 */
export const withModelOf = (layerOf: ProviderLayer, model: string) =>
<A, E, R>(
  answers: ReadonlyArray<Answer>,
  body: (server: { readonly seen: ReadonlyArray<any> }) => Effect.Effect<A, E, R>,
  timeout: number = 5_000
) =>
  Effect.scoped(Effect.gen(function*() {
    const server = yield* wireServer(answers)
    const layer = layerOf({ baseUrl: server.url, apiKey: Redacted.make(API_KEY), model, timeout })
    return yield* body(server).pipe(Effect.provide(Layer.provide(layer, FetchHttpClient.layer)))
  }))

/** The `AgentRuntimeError` a failure of `effect` becomes for provider `provider`. */
export const runtimeErrorOf = (provider: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(Effect.flip, Effect.map((error) => AgentRuntimeError.fromAiError(provider, error)))
