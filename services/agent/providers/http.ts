/**
 * What the two HTTP provider layers (`openai.ts`, `anthropic.ts`) share: their
 * configuration, one JSON POST with a timeout, one streamed POST read as
 * server-sent events, and the mapping of every failure to an `AiError` whose
 * description is safe to show an operator.
 *
 * Failure descriptions (the text `AgentRuntimeError.fromAiError` prefixes
 * with the provider name):
 * - HTTP status >= 400: `<the provider's own error message> (HTTP <status>)`,
 *   the message read from the error body by the provider's `errorMessage`
 *   (`HTTP <status>` alone when the body has none);
 * - no answer in time: `request timed out after <N>s`;
 * - a streamed answer that started, then sent nothing for the timeout:
 *   `stream stalled: no event for <N>s`;
 * - a connection failure: `request failed: <transport error> (POST <url>)`;
 * - a body that is not the provider's shape: `malformed response: <what>`.
 *
 * The API key is only ever a header of the request; no description is built
 * from the request, and any occurrence of the key's value in a provider's
 * message is replaced by `[redacted]` (some providers quote a masked key).
 *
 * @module
 */
import { Duration, Effect, Redacted, type Result, Stream } from "effect"
import { AiError, LanguageModel, type Response } from "effect/ai"
import { Sse } from "effect/encoding"
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "effect/http"

/**
 * Configuration of an HTTP provider layer.
 *
 * - `baseUrl`: the API root without a trailing slash (default per provider:
 *   `https://api.openai.com/v1`, `https://api.anthropic.com/v1`); requests go
 *   to `<baseUrl>/chat/completions` or `<baseUrl>/messages`, so any compatible
 *   server works;
 * - `apiKey`: the credential (the runtime resolves it through auth profiles);
 * - `model`: the provider's model id, without the `provider/` prefix
 *   (`gpt-4.1-mini`);
 * - `timeout`: how long one request may take before it fails with
 *   `request timed out after <N>s` (default 60 s); for a streamed request,
 *   how long until the response starts, and then between two events.
 */
export interface HttpProviderConfig {
  readonly baseUrl?: string | undefined
  readonly apiKey: Redacted.Redacted<string>
  readonly model: string
  readonly timeout?: Duration.Input | undefined
}

/** Default request timeout of the HTTP provider layers. */
export const DEFAULT_PROVIDER_TIMEOUT: Duration.Duration = Duration.seconds(60)

/** One provider's wire specifics, as the shared request helpers need them. */
export interface ProviderWire {
  /** `AiError.module` of its failures (`OpenAiLanguageModel`). */
  readonly module: string
  /** The full endpoint URL. */
  readonly url: string
  /** Request headers, credential included. */
  readonly headers: Readonly<Record<string, string>>
  /** The credential, scrubbed from any provider message. */
  readonly apiKey: Redacted.Redacted<string>
  readonly timeout: Duration.Duration
  /** The client every request goes through. */
  readonly client: HttpClient.HttpClient
  /** The provider's own message in an error body, when it has one. */
  readonly errorMessage: (body: unknown) => string | undefined
}

/** `<base>/<path>` with exactly one slash between them. */
export const endpoint = (baseUrl: string, path: string): string => `${baseUrl.replace(/\/+$/, "")}/${path}`

/** The whole seconds (or fraction) of a duration, as in `timed out after 30s`. */
const seconds = (duration: Duration.Duration): string => `${Number(Duration.toSeconds(duration).toFixed(3))}s`

const scrub = (text: string, apiKey: Redacted.Redacted<string>): string => {
  const key = Redacted.value(apiKey)
  return key.length > 0 ? text.split(key).join("[redacted]") : text
}

/** An `AiError` of `wire.module`/`method` for a body that is not the provider's shape. */
export const malformed = (wire: Pick<ProviderWire, "module">, method: string, what: string): AiError.AiError =>
  AiError.make({
    module: wire.module,
    method,
    reason: new AiError.InvalidResponseError({ description: `malformed response: ${what}` })
  })

/** A transport `AiError` of `wire`'s POST, described as `description`. */
const transportError = (wire: ProviderWire, method: string, description: string): AiError.AiError =>
  AiError.make({
    module: wire.module,
    method,
    reason: new AiError.NetworkError({ reason: "TransportError", method: "POST", url: wire.url, description })
  })

const timedOut = (wire: ProviderWire, method: string): AiError.AiError =>
  transportError(wire, method, `request timed out after ${seconds(wire.timeout)}`)

const stalled = (wire: ProviderWire, method: string): AiError.AiError =>
  transportError(wire, method, `stream stalled: no event for ${seconds(wire.timeout)}`)

const transportFailure = (wire: ProviderWire, method: string, error: { readonly message: string }): AiError.AiError =>
  AiError.make({
    module: wire.module,
    method,
    reason: new AiError.NetworkError({
      reason: "TransportError",
      method: "POST",
      url: wire.url,
      description: scrub(`request failed: ${error.message}`, wire.apiKey)
    })
  })

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The `AiError` for an HTTP error answer: the provider's message and the status. */
const statusFailure = (wire: ProviderWire, method: string, response: HttpClientResponse.HttpClientResponse) =>
  response.text.pipe(
    Effect.orElseSucceed(() => ""),
    Effect.flatMap((text) => {
      const message = wire.errorMessage(parseJson(text))
      const description = scrub(
        message === undefined ? `HTTP ${response.status}` : `${message} (HTTP ${response.status})`,
        wire.apiKey
      )
      return Effect.fail(
        AiError.make({
          module: wire.module,
          method,
          reason: AiError.reasonFromHttpStatus({ status: response.status, description })
        })
      )
    })
  )

const send = (wire: ProviderWire, method: string, body: unknown) =>
  wire.client.execute(
      HttpClientRequest.post(wire.url).pipe(
        HttpClientRequest.setHeaders(wire.headers),
        HttpClientRequest.bodyJsonUnsafe(body)
      )
    ).pipe(
      Effect.catchTag("HttpClientError", (error) => Effect.fail(transportFailure(wire, method, error))),
      Effect.flatMap((response) =>
        response.status >= 200 && response.status < 300 ? Effect.succeed(response) : statusFailure(wire, method, response)
      )
    )

/**
 * POSTs `body` as JSON and answers the parsed JSON answer. Fails with an
 * `AiError` for an HTTP error status, a transport failure, a body that is not
 * JSON, or no complete answer within `wire.timeout`.
 */
export const postJson = (wire: ProviderWire, method: string, body: unknown): Effect.Effect<unknown, AiError.AiError> =>
  send(wire, method, body).pipe(
    Effect.flatMap((response) =>
      response.text.pipe(Effect.catchTag("HttpClientError", (error) => Effect.fail(transportFailure(wire, method, error))))
    ),
    Effect.flatMap((text) => {
      const json = parseJson(text)
      return json === undefined ? Effect.fail(malformed(wire, method, "the body is not JSON")) : Effect.succeed(json)
    }),
    Effect.timeoutOrElse({ duration: wire.timeout, orElse: () => Effect.fail(timedOut(wire, method)) })
  )

/** One server-sent event of a streamed answer: its `event:` name (`message` by default) and parsed `data:`. */
export interface SseMessage {
  readonly event: string
  /** The `data:` text; `[DONE]` and other non-JSON data arrive as `raw` only. */
  readonly data: unknown
  readonly raw: string
}

/**
 * POSTs `body` as JSON and streams the answer's server-sent events. The
 * timeout covers the wait for the response to start, then each wait for the
 * next event; failures as {@link postJson}.
 */
export const postSse = (
  wire: ProviderWire,
  method: string,
  body: unknown
): Stream.Stream<SseMessage, AiError.AiError> =>
  send(wire, method, body).pipe(
    Effect.timeoutOrElse({ duration: wire.timeout, orElse: () => Effect.fail(timedOut(wire, method)) }),
    Effect.map((response) =>
      response.stream.pipe(
        Stream.decodeText(),
        Stream.pipeThroughChannel(Sse.decode()),
        Stream.map((event): SseMessage => ({ event: event.event, data: parseJson(event.data), raw: event.data })),
        Stream.catch((error): Stream.Stream<never, AiError.AiError> =>
          Stream.fail(
            error._tag === "HttpClientError"
              ? transportFailure(wire, method, error)
              : error._tag === "Retry"
              ? malformed(wire, method, "an SSE retry directive (a model answer cannot be resumed)")
              : malformed(wire, method, "invalid server-sent events")
          )
        ),
        // A stream that started and then went quiet fails like a request that never answered.
        Stream.timeoutOrElse({ duration: wire.timeout, orElse: () => Stream.fail(stalled(wire, method)) })
      )
    ),
    Stream.unwrap
  )

/** A usage part with no counts (the provider reported none). */
export const noUsage = {
  inputTokens: { uncached: undefined, total: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined }
} as const

/** A tool result's content as the model reads it: its text output parts, else the result (a string, or JSON). */
export const toolResultText = (part: {
  readonly result: unknown
  readonly modelOutput?: ReadonlyArray<{ readonly type: string; readonly text?: string }> | undefined
}): string => {
  const texts = part.modelOutput?.flatMap((output) => output.type === "text" && output.text !== undefined ? [output.text] : [])
  if (texts !== undefined && texts.length > 0) return texts.join("\n")
  return typeof part.result === "string" ? part.result : JSON.stringify(part.result ?? null)
}

/**
 * One HTTP provider's wire: what `openai.ts` and `anthropic.ts` each declare, the rest (the request with its
 * timeout, the streamed request, the `LanguageModel`) being {@link makeHttpLanguageModel}'s.
 *
 * - `module`: `AiError.module` of its failures; `defaultBaseUrl` and `path`: the endpoint `<baseUrl>/<path>`;
 * - `headers(apiKey)`: the request headers, credential included;
 * - `errorMessage`: the provider's own message in an error body;
 * - `request`: the JSON body for the options (without `stream`); `streamBody`: that body as the streamed request
 *   sends it;
 * - `response`: the parts of a whole answer; `stream`: the parts of a streamed one.
 */
export interface HttpProvider<Config extends HttpProviderConfig> {
  readonly module: string
  readonly defaultBaseUrl: string
  readonly path: string
  readonly headers: (apiKey: string) => Readonly<Record<string, string>>
  readonly errorMessage: (body: unknown) => string | undefined
  readonly request: (
    config: Config,
    options: LanguageModel.ProviderOptions,
    method: "generateText" | "streamText"
  ) => Result.Result<Record<string, unknown>, AiError.AiError>
  readonly streamBody: (body: Record<string, unknown>) => Record<string, unknown>
  readonly response: (
    options: LanguageModel.ProviderOptions
  ) => (json: unknown) => Effect.Effect<Array<Response.PartEncoded>, AiError.AiError>
  readonly stream: (events: Stream.Stream<SseMessage, AiError.AiError>) => Stream.Stream<Response.StreamPartEncoded, AiError.AiError>
}

/**
 * The `LanguageModel` of `provider` for `config`: whole answers through {@link postJson}, streamed ones through
 * {@link postSse}, both with `config.timeout` (default {@link DEFAULT_PROVIDER_TIMEOUT}). Needs an `HttpClient`
 * (captured here; the model's calls need nothing else).
 */
export const makeHttpLanguageModel = <Config extends HttpProviderConfig>(provider: HttpProvider<Config>, config: Config) =>
  Effect.gen(function*() {
    const wire: ProviderWire = {
      client: yield* HttpClient.HttpClient,
      module: provider.module,
      url: endpoint(config.baseUrl ?? provider.defaultBaseUrl, provider.path),
      headers: provider.headers(Redacted.value(config.apiKey)),
      apiKey: config.apiKey,
      timeout: config.timeout === undefined ? DEFAULT_PROVIDER_TIMEOUT : Duration.fromInputUnsafe(config.timeout),
      errorMessage: provider.errorMessage
    }
    return yield* LanguageModel.make({
      generateText: (options) =>
        Effect.fromResult(provider.request(config, options, "generateText")).pipe(
          Effect.flatMap((body) => postJson(wire, "generateText", body)),
          Effect.flatMap(provider.response(options))
        ),
      streamText: (options) =>
        Stream.fromEffect(Effect.fromResult(provider.request(config, options, "streamText"))).pipe(
          Stream.flatMap((body) => provider.stream(postSse(wire, "streamText", provider.streamBody(body))))
        )
    })
  })
