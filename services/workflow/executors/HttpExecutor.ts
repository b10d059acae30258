/**
 * The `Http` executor (issue 12 "Executors", issue 20 §3, §6, §11;
 * docs/workflow-executors.md "Http"): one request, bounded by the attempt's
 * timeout (DNS, connect, headers and body).
 *
 * 1. args are checked (`httpArgs.ts`); a value that is the redaction marker
 *    (a record restored without its inline credentials) is refused;
 * 2. header values given as `{"secret_handle": …}` are resolved (for the
 *    run's agent; recorded by the secret store);
 * 3. the host is resolved (an IP literal is its own address) and **every**
 *    address is checked against the run's `network_egress` deny rules
 *    (`egress.ts` `addressTargets`): a name that resolves to a denied
 *    address fails with `policy_denied`;
 * 4. the request connects only to those checked addresses (the agent's
 *    `lookup` answers with them; no second DNS query, so a rebinding between
 *    check and connect cannot redirect it), through Node's `http`/`https`
 *    (Effect's `NodeHttpClient`; Node 20 and Deno 2);
 * 5. a keyed step sends `Idempotency-Key` (`httpArgs.ts`) unless its headers
 *    set one; trace headers (`traceparent`, `b3`) go only to targets matching
 *    {@link HttpTraceTargets} (`SVC_TRACE_PROPAGATION_TARGETS`).
 *
 * Every answer (whatever its status) is stored through {@link AttemptArtifacts}
 * as an `http_trace` artifact (JSON `{request: {method, url}, response:
 * {status, headers, body, body_truncated}}`, the URL's credentials
 * redacted, labels `http`), linked to the attempt; the attempt's outcome
 * lists its ref (`artifacts`).
 *
 * Result `{status, headers, body, body_truncated}`: `headers` only those of
 * `KEPT_RESPONSE_HEADERS` (`httpRedaction.ts`); `body` the first
 * {@link MAX_HTTP_BODY_BYTES} bytes as UTF-8, parsed as JSON when the content
 * type says `json`, the body is complete and it parses. Redirects are not
 * followed (a 3xx is the answer: the gate judged the step's URL, not where a
 * redirect points). Fails `invalid_action`, `secret_unavailable`,
 * `policy_denied`, `network_error`, `timeout`, or `http_status` (with the
 * result) when the status is outside 200–299 and `postcondition.status` does
 * not name it. Messages name the origin, never a credential.
 *
 * @module
 */
import { NodeHttpClient } from "@effect/platform-node"
import { Context, Duration, Effect, Redacted, Result, Stream } from "effect"
import { HttpClient, HttpClientRequest, UrlParams } from "effect/http"
import { Dns, NetAddress } from "effect/net"
import type { LookupFunction } from "node:net"
import { addressTargets, egressTargets, firstMatch } from "../../policy-bundle/egress.ts"
import type { ActionPrimitive } from "../../planner/schema.ts"
import { AttemptFailed, type AttemptContext, type AttemptOutcome } from "../StepExecutor.ts"
import { type HttpArgs, idempotencyKeyHeader, isHeaderValue, parseHttpArgs } from "./httpArgs.ts"
import { AttemptArtifacts, type StoreAttemptArtifact } from "./AttemptArtifacts.ts"
import { CREDENTIAL_NAME, keptResponseHeaders, redactUrl } from "./httpRedaction.ts"
import { HttpStepContext } from "./HttpStepContext.ts"
import { parsePostcondition, sameStatus } from "./postconditions.ts"
import { defineExecutor } from "./registry.ts"
import type { ActionExecutor } from "./types.ts"

export { parseHttpArgs }

/** Most response body bytes kept in the result (64 KiB). */
export const MAX_HTTP_BODY_BYTES = 64 * 1024

/** The result of an `Http` attempt. */
export interface HttpResult {
  readonly status: number
  /** The kept response headers (`KEPT_RESPONSE_HEADERS`), lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: unknown
  readonly body_truncated: boolean
}

/**
 * URL patterns (globs over `protocol//host[:port]/path`, matched like
 * `network_egress` rules) of the targets that receive trace headers
 * (`SVC_TRACE_PROPAGATION_TARGETS`); default empty: none do.
 */
export const HttpTraceTargets = Context.Reference<ReadonlyArray<string>>("svc-gateway/workflow/HttpTraceTargets", {
  defaultValue: () => []
})

/** Options of {@link makeHttpExecutor}. */
export interface HttpExecutorOptions {
  /** {@link HttpTraceTargets}. */
  readonly traceTargets: ReadonlyArray<string>
  /** Where the `http_trace` of each answer is stored ({@link AttemptArtifacts}; default: nowhere). */
  readonly artifacts?: StoreAttemptArtifact | undefined
}

const invalid = (message: string) => new AttemptFailed({ code: "invalid_action", message })

/** One address a connection may use, as Node's `lookup` answers it. */
interface CheckedAddress {
  readonly address: string
  readonly family: 4 | 6
}

/** A `lookup` that answers only with `addresses` (already checked), for Node's agents: the connection is pinned to them. */
const pinnedLookup = (addresses: ReadonlyArray<CheckedAddress>): LookupFunction => (hostname, options, callback) => {
  const family = typeof options === "number" ? options : options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family
  const usable = addresses.filter((a) => family === undefined || family === 0 || a.family === family)
  if (usable.length === 0) {
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname })
    return callback(error, "", 0)
  }
  if (typeof options === "object" && options.all === true) return (callback as unknown as (e: null, a: ReadonlyArray<CheckedAddress>) => void)(null, usable)
  return callback(null, usable[0]!.address, usable[0]!.family)
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

/** The host of `url` as DNS takes it (no IPv6 brackets). */
const hostOf = (url: URL) => (url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname)

/**
 * The `Http` executor over `context` (egress rules, secrets) and `dns`;
 * requests go through Node's `http`/`https` with a per-attempt agent pinned
 * to the checked addresses.
 */
export const makeHttpExecutor = (
  context: HttpStepContext["Service"],
  dns: Dns.Dns["Service"],
  options: HttpExecutorOptions
): ActionExecutor =>
  Effect.fnUntraced(function*(action: ActionPrimitive, attempt: AttemptContext) {
    const args = parseHttpArgs(action.args)
    if (typeof args === "string") return yield* invalid(args)
    const postcondition = parsePostcondition(action.postcondition)
    if (typeof postcondition === "string") return yield* invalid(postcondition)
    const target = `${args.method} ${args.url.origin}`

    const exchange = Effect.gen(function*() {
      const headers = yield* resolveHeaders(context, args, action, attempt)
      const addresses = yield* checkedAddresses(context, dns, args.url, attempt.run_id, target)
      let request = HttpClientRequest.make(args.method)(args.url, { headers })
      if (typeof args.body === "string") request = HttpClientRequest.bodyText(request, args.body)
      else if (args.body !== undefined) request = HttpClientRequest.bodyJsonUnsafe(request, args.body)
      const traced = firstMatch(options.traceTargets, egressTargets(args.url.href)) !== undefined
      return yield* Effect.scoped(Effect.gen(function*() {
        const agent = yield* NodeHttpClient.makeAgent({ lookup: pinnedLookup(addresses) })
        const client = yield* Effect.provideService(NodeHttpClient.makeNodeHttp, NodeHttpClient.HttpAgent, agent)
        const response = yield* client.execute(request).pipe(
          Effect.provideService(HttpClient.TracerPropagationEnabled, traced),
          // The client span's url.full: credential query values hidden like in records.
          Effect.provideService(UrlParams.CurrentRedactedNames, [CREDENTIAL_NAME]),
          Effect.mapError((error) => new AttemptFailed({ code: "network_error", message: `${target} failed: ${error.reason._tag}` }))
        )
        const { bytes, truncated } = yield* readCapped(response.stream, MAX_HTTP_BODY_BYTES).pipe(
          // No body at all (204, HEAD) is an empty one.
          Effect.catchIf(
            (error) => error.reason._tag === "EmptyBodyError",
            () => Effect.succeed({ bytes: new Uint8Array(0), truncated: false })
          ),
          Effect.mapError((error) => new AttemptFailed({ code: "network_error", message: `${target} failed: ${error.reason._tag}` }))
        )
        return {
          status: response.status,
          headers: keptResponseHeaders(response.headers),
          body: decodeBody(bytes, truncated, response.headers["content-type"]),
          body_truncated: truncated
        } satisfies HttpResult
      }))
    })

    const result = yield* exchange.pipe(
      Effect.timeoutOrElse({
        duration: Duration.millis(attempt.timeout_ms),
        orElse: () =>
          Effect.fail(new AttemptFailed({ code: "timeout", message: `${target} did not answer within ${attempt.timeout_ms} ms` }))
      })
    )
    const trace = yield* storeTrace(options.artifacts, attempt, args, result)
    const artifacts = trace === undefined ? {} : { artifacts: [trace] }
    const ok = result.status >= 200 && result.status <= 299
    const expected = postcondition?.status !== undefined && sameStatus(postcondition.status, result.status)
    if (!ok && !expected) {
      return yield* new AttemptFailed({ code: "http_status", message: `${target} answered ${result.status}`, result, ...artifacts })
    }
    return { result, ...artifacts } satisfies AttemptOutcome as AttemptOutcome
  })

/** Stores the exchange as an `http_trace` artifact of the attempt (request line with the URL redacted, the kept answer). */
const storeTrace = (
  artifacts: StoreAttemptArtifact | undefined,
  attempt: AttemptContext,
  args: HttpArgs,
  result: HttpResult
) => {
  if (artifacts === undefined) return Effect.succeed(undefined)
  const url = redactUrl(args.url.href)
  const trace = { request: { method: args.method, url }, response: result }
  return artifacts(attempt, {
    kind: "http_trace",
    bytes: new TextEncoder().encode(JSON.stringify(trace)),
    mime_type: "application/json",
    labels: ["http"],
    metadata: { method: args.method, url, status: result.status }
  })
}

/** The request headers: the step's (secret handles resolved), plus `Idempotency-Key` for a keyed step. */
const resolveHeaders = (context: HttpStepContext["Service"], args: HttpArgs, action: ActionPrimitive, attempt: AttemptContext) =>
  Effect.gen(function*() {
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(args.headers)) {
      if (typeof value === "string") {
        headers[name] = value
        continue
      }
      const purpose = `workflow:${attempt.run_id}:step-${attempt.step_index}:header:${name.toLowerCase()}`
      const secret = yield* context.resolveSecret(attempt.run_id, value.secret_handle, purpose).pipe(
        Effect.mapError((e) => new AttemptFailed({ code: "secret_unavailable", message: `Http args.headers.${name}: ${e.message}` }))
      )
      const text = Redacted.value(secret)
      if (!isHeaderValue(text)) {
        return yield* invalid(`Http args.headers.${name}: the value of secret handle ${value.secret_handle} cannot be sent in a header (CR, LF or another control)`)
      }
      headers[name] = text
    }
    const named = new Set(Object.keys(headers).map((n) => n.toLowerCase()))
    if (action.idempotency_key !== undefined && !named.has("idempotency-key")) {
      headers["Idempotency-Key"] = idempotencyKeyHeader(attempt.run_id, action.idempotency_key)
    }
    return headers
  })

/**
 * The addresses `url`'s host resolves to (an IP literal: itself), each
 * checked against the run's `network_egress` deny rules; `policy_denied`
 * naming the address and the rule when one is denied.
 */
const checkedAddresses = (context: HttpStepContext["Service"], dns: Dns.Dns["Service"], url: URL, run_id: string, target: string) =>
  Effect.gen(function*() {
    const host = hostOf(url)
    const literal = NetAddress.ipFromString(host)
    const resolved = Result.isSuccess(literal) ? [literal.success] : yield* dns.lookup(host).pipe(
      Effect.mapError((e) => new AttemptFailed({ code: "network_error", message: `${target} failed: DNS lookup of ${host}: ${e.reason}` }))
    )
    const rules = yield* context.egressRules(run_id)
    const addresses: Array<CheckedAddress> = []
    for (const ip of resolved) {
      const address = NetAddress.formatIp(ip)
      const denied = firstMatch(rules.deny, addressTargets(url.href, address))
      if (denied !== undefined) {
        return yield* new AttemptFailed({
          code: "policy_denied",
          message: `${target} denied: ${host} resolves to ${address}, which network_egress denies (${denied})`
        })
      }
      addresses.push({ address, family: NetAddress.isIpv4Address(ip) ? 4 : 6 })
    }
    return addresses
  })

/** The `Http` executor, built from the environment's `HttpStepContext`, `Dns`, {@link HttpTraceTargets} and {@link AttemptArtifacts}. */
export const HttpExecutor = defineExecutor({
  kinds: ["Http"],
  make: Effect.gen(function*() {
    return makeHttpExecutor(yield* HttpStepContext, yield* Dns.Dns, {
      traceTargets: yield* HttpTraceTargets,
      artifacts: yield* AttemptArtifacts
    })
  })
})
