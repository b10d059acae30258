/**
 * The `Http` executor (issue 12 "Executors"; docs/workflow-executors.md):
 * one request with Effect's `HttpClient`, bounded by the attempt's timeout.
 *
 * - args `{method? (GET), url (http/https), headers?: Record<string,string>, body?}`;
 *   a string body is sent as text, any other JSON value as JSON.
 * - result `{status, headers, body, body_truncated}`: `body` is the first
 *   {@link MAX_HTTP_BODY_BYTES} bytes decoded as UTF-8, parsed as JSON when the
 *   response says `json` in its content type, is complete and parses; text otherwise.
 * - redirects are not followed (a 3xx is the answer): the policy gate judged
 *   the step's URL, not where a redirect points.
 * - fails `invalid_action`, `network_error`, `timeout`, or `http_status`
 *   (with the result) when the status is outside 200–299 and
 *   `postcondition.status` does not name it.
 *
 * @module
 */
import { Duration, Effect, Stream } from "effect"
import { FetchHttpClient, HttpClient, HttpClientRequest, HttpMethod } from "effect/http"
import type { ActionPrimitive } from "../../planner/schema.ts"
import { AttemptFailed, type AttemptContext, type AttemptOutcome } from "../StepExecutor.ts"
import { parsePostcondition, sameStatus } from "./postconditions.ts"
import type { ActionExecutor } from "./types.ts"

/** Most response body bytes kept in the result (64 KiB). */
export const MAX_HTTP_BODY_BYTES = 64 * 1024

/** The result of an `Http` attempt. */
export interface HttpResult {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly body_truncated: boolean
}

interface HttpArgs {
  readonly method: HttpMethod.HttpMethod
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
}

const invalid = (message: string) => new AttemptFailed({ code: "invalid_action", message })

/** Validates `args`, or says what is wrong. */
export const parseHttpArgs = (args: Readonly<Record<string, unknown>>): HttpArgs | string => {
  const method = args.method === undefined ? "GET" : typeof args.method === "string" ? args.method.toUpperCase() : undefined
  if (method === undefined || !HttpMethod.isHttpMethod(method)) return "Http args.method must be an HTTP method"
  if (typeof args.url !== "string") return "Http args.url must be a string"
  let url: URL
  try {
    url = new URL(args.url.trim())
  } catch {
    return "Http args.url is not a valid URL"
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Http args.url must be http or https"
  const headers: Record<string, string> = {}
  if (args.headers !== undefined) {
    if (typeof args.headers !== "object" || args.headers === null || Array.isArray(args.headers)) {
      return "Http args.headers must be an object of strings"
    }
    for (const [name, value] of Object.entries(args.headers)) {
      if (typeof value !== "string") return `Http args.headers.${name} must be a string`
      headers[name] = value
    }
  }
  if (args.body !== undefined && (method === "GET" || method === "HEAD")) return `Http args.body is not allowed with ${method}`
  return { method, url, headers, body: args.body }
}

/** Reads at most `max` bytes of `stream`; stops reading (and so cancels the body) beyond it. */
const readCapped = <E>(stream: Stream.Stream<Uint8Array, E>, max: number) =>
  Effect.suspend(() => {
    const chunks: Array<Uint8Array> = []
    let size = 0
    let truncated = false
    return Stream.runForEachWhile(stream, (chunk) =>
      Effect.sync(() => {
        const room = max - size
        if (chunk.length > room) {
          chunks.push(chunk.subarray(0, room))
          size = max
          truncated = true
          return false
        }
        chunks.push(chunk)
        size += chunk.length
        return true
      })).pipe(Effect.map(() => ({ bytes: Buffer.concat(chunks, size), truncated })))
  })

const decodeBody = (bytes: Uint8Array, truncated: boolean, contentType: string | undefined): unknown => {
  const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes)
  if (!truncated && contentType !== undefined && /json/i.test(contentType) && text.trim() !== "") {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}

/** The `Http` executor over `client`. */
export const makeHttpExecutor = (client: HttpClient.HttpClient): ActionExecutor =>
  Effect.fnUntraced(function*(action: ActionPrimitive, context: AttemptContext) {
    const args = parseHttpArgs(action.args)
    if (typeof args === "string") return yield* invalid(args)
    const postcondition = parsePostcondition(action.postcondition)
    if (typeof postcondition === "string") return yield* invalid(postcondition)

    let request = HttpClientRequest.make(args.method)(args.url, { headers: args.headers })
    if (typeof args.body === "string") request = HttpClientRequest.bodyText(request, args.body)
    else if (args.body !== undefined) request = HttpClientRequest.bodyJsonUnsafe(request, args.body)

    const target = `${args.method} ${args.url.origin}`
    const exchange = client.execute(request).pipe(
      Effect.flatMap((response) =>
        readCapped(response.stream, MAX_HTTP_BODY_BYTES).pipe(
          // No body at all (204, HEAD) is an empty one.
          Effect.catchIf(
            (error) => error.reason._tag === "EmptyBodyError",
            () => Effect.succeed({ bytes: new Uint8Array(0), truncated: false })
          ),
          Effect.map(({ bytes, truncated }): HttpResult => ({
            status: response.status,
            headers: { ...response.headers },
            body: decodeBody(bytes, truncated, response.headers["content-type"]),
            body_truncated: truncated
          }))
        )
      ),
      Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
      Effect.timeout(Duration.millis(context.timeout_ms))
    )
    const result = yield* exchange.pipe(
      Effect.mapError((error) =>
        error._tag === "TimeoutError"
          ? new AttemptFailed({ code: "timeout", message: `${target} did not answer within ${context.timeout_ms} ms` })
          : new AttemptFailed({ code: "network_error", message: `${target} failed: ${error.reason._tag}` })
      )
    )
    const ok = result.status >= 200 && result.status <= 299
    const expected = postcondition?.status !== undefined && sameStatus(postcondition.status, result.status)
    if (!ok && !expected) {
      return yield* new AttemptFailed({
        code: "http_status",
        message: `${target} answered ${result.status}`,
        result
      })
    }
    return { result } satisfies AttemptOutcome as AttemptOutcome
  })

/** Reads the `Http` executor from the environment's `HttpClient`. */
export const HttpExecutor = Effect.gen(function*() {
  return makeHttpExecutor(yield* HttpClient.HttpClient)
})
