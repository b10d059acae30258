/**
 * A lean `HttpServer` for a Node `http.Server`: the same contract as
 * `NodeHttpServer` from `@effect/platform-node` (whose services it provides and
 * whose response writer it falls back to), with less work per request on the
 * common path (docs/performance.md):
 *
 * - Bodies are read only when the app asks (so the gateway authenticates from
 *   the headers before reading any body): `data` chunks collected into one
 *   `Buffer`, delivered on `end` (platform-node reads through a stream wrapper
 *   that resumes on `close`, a tick later, with more listeners).
 * - Requests that {@link ReadBodyFirst} accepts (the gateway: authenticated from
 *   their headers alone) have their body read before the app runs, so that
 *   the app, its body read included, usually completes synchronously inside
 *   the `end` callback: no fiber suspended, scheduled, registered in the
 *   server scope or given a close listener. Every other request runs at once
 *   and reads its body when it asks (after authentication, in the gateway).
 * - Either way the body is bounded by `HttpIncomingMessage.MaxBodySize` when the
 *   app reads it (a declared `content-length` above it fails without reading);
 *   a breach fails with `RequestParseError` reason `"BodyTooLarge"`.
 * - A response whose body is text, bytes (under 1 MiB) or empty, to a request
 *   whose body was read to the end (or had none), is written with one
 *   `writeHead` (status, headers with content-type/-length, `set-cookie` from
 *   the cookies) and one `end`, synchronously. Everything else — streams, raw
 *   and form bodies, `HEAD`, an unread request body (which needs draining or
 *   closing the connection), headers Node rejects — goes to platform-node's own
 *   handler (`NodeHttpServer.makeHandler`), unchanged.
 * - No per-request `finish` listener, no `checkContinue` listener (Node answers
 *   `100 Continue` itself), no `upgrade` listener: the `upgrade` event is left to
 *   whoever attaches to the server (e.g. a `ws` WebSocketServer created with
 *   `noServer`); with no listener Node serves upgrade requests as ordinary ones.
 *   `request.upgrade` therefore fails. HTTP/1.1 only.
 *
 * Kept as in platform-node: graceful shutdown (`server.close` waits for
 * in-flight requests, up to `gracefulShutdownTimeout`, before the scope's
 * later finalizers run), interrupting a request's fiber when the client goes
 * away, `remoteAddress`, `source` (the `IncomingMessage`), cookies, multipart,
 * `modify`, middleware and pre-response handlers (via `HttpEffect.toHandled`).
 */
import { NodeHttpIncomingMessage, NodeHttpServer, NodeHttpServerRequest, NodeMultipart, NodeServices } from "@effect/platform-node"
import { Context, Duration, Effect, Exit, Fiber, Layer, Option, Scope, Stream } from "effect"
import type { FileSystem, Path } from "effect"
import type { LazyArg } from "effect/Function"
import {
  Cookies,
  type Etag,
  Headers,
  HttpEffect,
  HttpIncomingMessage,
  type HttpMiddleware,
  type HttpPlatform,
  HttpServer,
  HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  type Multipart,
  UrlParams
} from "effect/http"
import { NetAddress } from "effect/net"
import type { Socket } from "effect/socket"
import type * as Http from "node:http"
import type * as Net from "node:net"
import { Readable } from "node:stream"
import type * as Tls from "node:tls"

/** Listen options plus how long shutdown waits for in-flight requests (default 20 s, as platform-node). */
export interface Options extends Net.ListenOptions {
  readonly gracefulShutdownTimeout?: Duration.Input | undefined
}

/**
 * The `HttpServer` service over the server `evaluate` creates: listens with
 * `options`, serves through the lean handler, and closes the server when the
 * scope closes (waiting for in-flight requests).
 */
export const make = Effect.fnUntraced(function*(evaluate: LazyArg<Http.Server>, options: Options) {
  const scope = yield* Effect.scope
  const server = evaluate()

  const shutdown = yield* Effect.callback<void>((resume) => {
    if (!server.listening) return resume(Effect.void)
    server.close((error) => resume(error ? Effect.die(error) : Effect.void))
  }).pipe(Effect.cached)
  const gracefulShutdown = Effect.timeoutOrElse(shutdown, {
    duration: options.gracefulShutdownTimeout ?? Duration.seconds(20),
    orElse: () => Effect.void
  })
  yield* Scope.addFinalizer(scope, shutdown)

  // The server listens before the app is installed (`serve`, once the routes are built): a request arriving in
  // between would find no `request` listener and never be answered. Such requests wait here (their bodies unread,
  // so paused) and run when `serve` installs the handler.
  const early: Array<readonly [Http.IncomingMessage, Http.ServerResponse]> = []
  const hold = (request: Http.IncomingMessage, response: Http.ServerResponse) => void early.push([request, response])
  server.on("request", hold)

  yield* Effect.callback<void, HttpServerError.ServeError>((resume) => {
    const onError = (cause: Error) => resume(Effect.fail(new HttpServerError.ServeError({ cause })))
    server.on("error", onError)
    server.listen(options, () => {
      server.off("error", onError)
      resume(Effect.void)
    })
  })

  const address = server.address()!
  const boundAddress = typeof address === "string"
    ? NetAddress.unixPathAddress(address)
    : yield* Effect.fromResult(NetAddress.inetAddressFromIpString(address.address, address.port)).pipe(
      Effect.mapError((cause) => new HttpServerError.ServeError({ cause }))
    )

  return HttpServer.make({
    address: boundAddress,
    serve: Effect.fnUntraced(function*(httpApp, middleware) {
      const serveScope = yield* Effect.scope
      // Request fibers run in a child scope: closed (interrupting stragglers) after the graceful shutdown below.
      const requestScope = Scope.forkUnsafe(serveScope, "parallel")
      const handler = yield* makeHandler(httpApp, { scope: requestScope, middleware })
      yield* Scope.addFinalizer(
        serveScope,
        Effect.ensuring(gracefulShutdown, Effect.sync(() => server.off("request", handler)))
      )
      server.off("request", hold)
      server.on("request", handler)
      for (const [request, response] of early.splice(0)) handler(request, response)
    })
  })
})

/**
 * Which requests the adapter reads the body of before running the app
 * (`undefined`, the default: none). A predicate on the Node request, run
 * synchronously in its `request` callback; it should accept only requests
 * that the app would let read their body (authenticated, under the body
 * limit, with a declared `content-length`), so that nothing is read that the
 * app would have refused unread. Read from the serving fiber's context.
 */
export const ReadBodyFirst = Context.Reference<((request: Http.IncomingMessage) => boolean) | undefined>(
  "svc-gateway/layers/http/LeanNodeHttpServer/ReadBodyFirst",
  { defaultValue: () => undefined }
)

/**
 * A Node `request` listener running `httpApp` (with `middleware`) for each
 * request in its own fiber, forked into `scope`.
 */
export const makeHandler = <E, R>(
  httpApp: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>,
  options: { readonly scope: Scope.Scope; readonly middleware?: HttpMiddleware.HttpMiddleware | undefined }
): Effect.Effect<
  (nodeRequest: Http.IncomingMessage, nodeResponse: Http.ServerResponse) => void,
  never,
  Exclude<R, HttpServerRequest.HttpServerRequest | Scope.Scope>
> =>
  Effect.flatMap(NodeHttpServer.makeHandler(fallbackApp, { scope: options.scope }), (fallback) => {
    const respond = makeRespond(fallback as (req: Http.IncomingMessage, res: Http.ServerResponse) => void)
    const handled = HttpEffect.toHandled(httpApp, respond, options.middleware)
    return Effect.withFiber((parent) => {
      // The request fiber gets every service of the serving fiber plus the request.
      const services = parent.context as Context.Context<any>
      const parentId = parent.id
      const scope = options.scope
      const readFirst = Context.get(services, ReadBodyFirst)
      const run = (request: LeanServerRequest): void => {
        const fiber = Effect.runForkWith(Context.add(services, HttpServerRequest.HttpServerRequest, request))(handled)
        if (fiber.pollUnsafe() !== undefined) return
        Fiber.runIn(fiber, scope)
        const nodeResponse = request.response
        nodeResponse.on("close", () => {
          if (!nodeResponse.writableEnded) fiber.interruptUnsafe(parentId, HttpServerError.ClientAbort.annotation)
        })
      }
      return Effect.succeed((nodeRequest: Http.IncomingMessage, nodeResponse: Http.ServerResponse): void => {
        const request = new LeanServerRequest(nodeRequest, nodeResponse)
        if (readFirst !== undefined && readFirst(nodeRequest)) request.readBodyFirst(run)
        else run(request)
      })
    })
  }) as any

/**
 * Provides the lean `HttpServer` plus what `NodeHttpServer.layer` provides
 * besides it: `HttpPlatform`, the weak `Etag.Generator` and `NodeServices`.
 */
export const layer = (
  evaluate: LazyArg<Http.Server>,
  options: Options
): Layer.Layer<
  HttpServer.HttpServer | NodeServices.NodeServices | HttpPlatform.HttpPlatform | Etag.Generator,
  HttpServerError.ServeError
> =>
  Layer.mergeAll(
    Layer.effect(HttpServer.HttpServer)(make(evaluate, options)),
    NodeHttpServer.layerHttpServices
  )

// -----------------------------------------------------------------------------
// Responses
// -----------------------------------------------------------------------------

/** Responses handed to platform-node's handler, keyed by the Node response they are for. */
const delegated = new WeakMap<Http.ServerResponse, HttpServerResponse.HttpServerResponse>()

/** The app platform-node's handler runs for a delegated response: the response itself. */
const fallbackApp = Effect.map(HttpServerRequest.HttpServerRequest, (request: HttpServerRequest.HttpServerRequest) => {
  const nodeResponse = NodeHttpServerRequest.toServerResponse(request) as Http.ServerResponse
  const response = delegated.get(nodeResponse)
  delegated.delete(nodeResponse)
  return response ?? HttpServerResponse.empty({ status: 500 })
})

/** Byte bodies from this size on are written by platform-node, which waits for them to be flushed. */
const LARGE_BODY_BYTES = 1024 * 1024

/** True when the request body has been read to the end, or there is none to read. */
const bodySettled = (source: Http.IncomingMessage): boolean => {
  if (source.complete) return true
  const headers = source.headers
  return headers["transfer-encoding"] === undefined &&
    (headers["content-length"] === undefined || headers["content-length"] === "0")
}

const makeRespond = (fallback: (req: Http.IncomingMessage, res: Http.ServerResponse) => void) => {
  // Lets platform-node write the response; completes when the Node response closes (finished or aborted),
  // so the request scope stays open while a streamed body is written.
  const delegate = (request: LeanServerRequest, response: HttpServerResponse.HttpServerResponse): Effect.Effect<void> =>
    Effect.interruptible(Effect.callback<void>((resume) => {
      const nodeResponse = request.response
      nodeResponse.once("close", () => resume(Effect.void))
      delegated.set(nodeResponse, response)
      fallback(request.source, nodeResponse)
    }))

  return (
    httpRequest: HttpServerRequest.HttpServerRequest,
    response: HttpServerResponse.HttpServerResponse
  ): Effect.Effect<void> => {
    const request = httpRequest as LeanServerRequest
    const nodeResponse = request.response
    if (nodeResponse.writableEnded) return Effect.void
    const body = response.body
    if (nodeResponse.destroyed) {
      // Nobody can read it: release a raw Node stream body, as platform-node does.
      if (body._tag === "Raw" && body.body instanceof Readable) body.body.destroy()
      return Effect.void
    }
    const status = response.status
    if (
      (body._tag !== "Empty" && (body._tag !== "Uint8Array" || body.contentLength >= LARGE_BODY_BYTES)) ||
      status < 200 || status > 599 ||
      nodeResponse.headersSent || request.method === "HEAD" || !bodySettled(request.source)
    ) {
      return delegate(request, response)
    }
    const omitsBody = status === 204 || status === 205 || status === 304
    let headers: Record<string, string | Array<string>> = response.headers
    if ((status === 204 || status === 205) && headers["content-length"] !== undefined) {
      const { "content-length": _, ...rest } = headers
      headers = rest
    }
    if (!Cookies.isEmpty(response.cookies)) {
      const setCookie = Cookies.toSetCookieHeaders(response.cookies)
      const existing = headers["set-cookie"]
      if (existing !== undefined) setCookie.push(...(typeof existing === "string" ? [existing] : existing))
      headers = { ...headers, "set-cookie": setCookie }
    }
    try {
      nodeResponse.writeHead(status, response.statusText, headers)
    } catch {
      // Node refused a header: platform-node answers 500 and reports the defect.
      return delegate(request, response)
    }
    try {
      if (omitsBody || body._tag === "Empty") {
        nodeResponse.end()
      } else {
        // A content-length header that disagrees with the body throws rather than corrupting the connection.
        nodeResponse.strictContentLength = true
        nodeResponse.end(body.text ?? body.body)
      }
    } catch (defect) {
      nodeResponse.destroy()
      return Effect.die(defect)
    }
    return Effect.void
  }
}

// -----------------------------------------------------------------------------
// Requests
// -----------------------------------------------------------------------------

const maxBytesOf = (size: bigint | undefined): number | undefined => size === undefined ? undefined : Number(size)

/** Bounds an already read body by the current reader's limit (an earlier reader may have had another). */
const limited = (
  request: LeanServerRequest,
  exit: Exit.Exit<Buffer, HttpServerError.HttpServerError>,
  maxBytes: number | undefined
): Exit.Exit<Buffer, HttpServerError.HttpServerError> =>
  maxBytes !== undefined && exit._tag === "Success" && exit.value.length > maxBytes
    ? Exit.fail(request.parseError("BodyTooLarge"))
    : exit

/** A body read on demand, once per Node request; shared by every view `modify` creates. */
class BodyReader {
  exit: Exit.Exit<Buffer, HttpServerError.HttpServerError> | undefined = undefined
  private readonly waiters: Array<(exit: Exit.Exit<Buffer, HttpServerError.HttpServerError>) => void> = []
  private readonly chunks: Array<Buffer> = []
  private bytes = 0
  private maxBytes: number | undefined = undefined
  private listening = false

  constructor(readonly request: LeanServerRequest) {}

  /** The body, when it has been read in full. */
  get body(): Buffer | undefined {
    return this.exit !== undefined && this.exit._tag === "Success" ? this.exit.value : undefined
  }

  /** Reads the whole body now (unbounded: readers apply their limit), then calls `then` (synchronously if already read). */
  prefetch(then: () => void): void {
    if (this.exit !== undefined) return then()
    this.waiters.push(then)
    if (!this.listening) this.listen(undefined)
  }

  read(maxBytes: number | undefined): Effect.Effect<Buffer, HttpServerError.HttpServerError> {
    if (this.exit !== undefined) return limited(this.request, this.exit, maxBytes)
    return Effect.callback((resume) => {
      this.waiters.push(resume)
      if (!this.listening) this.listen(maxBytes)
      return this.exit === undefined ? Effect.sync(() => this.unsubscribe(resume)) : undefined
    })
  }

  private listen(maxBytes: number | undefined): void {
    const source = this.request.source
    const declared = source.headers["content-length"]
    if (maxBytes !== undefined && declared !== undefined && Number(declared) > maxBytes) {
      return this.finish(Exit.fail(this.request.parseError("BodyTooLarge")))
    }
    if (source.readableEnded) return this.finish(Exit.succeed(Buffer.alloc(0)))
    if (source.destroyed) return this.finish(Exit.fail(this.request.parseError("Parse", new Error("request closed"))))
    this.maxBytes = maxBytes
    this.listening = true
    source.on("data", this.onData)
    source.on("end", this.onEnd)
    source.on("error", this.onError)
    source.on("close", this.onClose)
  }

  private detach(): void {
    if (!this.listening) return
    this.listening = false
    const source = this.request.source
    source.off("data", this.onData)
    source.off("end", this.onEnd)
    source.off("error", this.onError)
    source.off("close", this.onClose)
  }

  // Interrupted readers stop the read; what arrived so far is kept for the next reader.
  private unsubscribe(resume: (exit: Exit.Exit<Buffer, HttpServerError.HttpServerError>) => void): void {
    const index = this.waiters.indexOf(resume)
    if (index !== -1) this.waiters.splice(index, 1)
    if (this.waiters.length === 0 && this.exit === undefined) {
      this.detach()
      this.request.source.pause()
    }
  }

  private finish(exit: Exit.Exit<Buffer, HttpServerError.HttpServerError>): void {
    this.detach()
    this.exit = exit
    this.chunks.length = 0
    const waiters = this.waiters.splice(0)
    for (const resume of waiters) resume(exit)
  }

  private readonly onData = (chunk: Buffer): void => {
    this.bytes += chunk.length
    if (this.maxBytes !== undefined && this.bytes > this.maxBytes) {
      // Stop reading; the response (via platform-node) drains or closes the connection.
      this.request.source.pause()
      return this.finish(Exit.fail(this.request.parseError("BodyTooLarge")))
    }
    this.chunks.push(chunk)
  }

  private readonly onEnd = (): void => {
    const chunks = this.chunks
    this.finish(Exit.succeed(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, this.bytes)))
  }

  private readonly onError = (cause: Error): void => this.finish(Exit.fail(this.request.parseError("Parse", cause)))

  private readonly onClose = (): void => {
    if (this.exit === undefined) this.finish(Exit.fail(this.request.parseError("Parse", new Error("request closed before the body ended"))))
  }
}

/** UTF-8, dropping a leading byte order mark (as `TextDecoder` does). */
const decodeText = (buffer: Buffer): string => {
  const text = buffer.toString("utf8")
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}

const toArrayBuffer = (buffer: Buffer): ArrayBuffer =>
  (buffer.byteOffset === 0 && buffer.buffer.byteLength === buffer.byteLength
    ? buffer.buffer
    : buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength)) as ArrayBuffer

// RFC 9112 §3.2.2: an absolute-form target's authority takes precedence over Host.
const absoluteTarget = (url: string): URL | undefined => {
  if (!/^https?:\/\//i.test(url)) return undefined
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

/**
 * `HttpServerRequest` over a Node `IncomingMessage`. Headers, `remoteAddress`,
 * `json`, `urlParamsBody` and `stream` come from platform-node's
 * `NodeHttpIncomingMessage`; the body readers (`text`, `arrayBuffer`) are
 * replaced by {@link BodyReader}.
 */
class LeanServerRequest extends NodeHttpIncomingMessage.NodeHttpIncomingMessage<HttpServerError.HttpServerError>
  implements HttpServerRequest.HttpServerRequest
{
  // The adapter (or platform-node's teardown) owns the Node request after a streamed read.
  protected override readonly closeOnDone = false
  readonly [HttpServerRequest.TypeId]: typeof HttpServerRequest.TypeId = HttpServerRequest.TypeId
  readonly response: Http.ServerResponse
  readonly url: string
  readonly protocol: "http" | "https" | undefined
  private readonly root: LeanServerRequest | undefined
  private headersOverride: Headers.Headers | undefined
  private readonly peerAddressOverride: Option.Option<string> | undefined
  private reader: BodyReader | undefined = undefined
  private cachedCookies: Record<string, string> | undefined = undefined
  private multipartEffect: Effect.Effect<Multipart.Persisted, Multipart.MultipartError, Scope.Scope | FileSystem.FileSystem | Path.Path> | undefined = undefined

  constructor(
    source: Http.IncomingMessage,
    response: Http.ServerResponse,
    view?: {
      readonly root: LeanServerRequest
      readonly url: string
      readonly headers: Headers.Headers | undefined
      readonly remoteAddress: Option.Option<string> | undefined
      readonly peerAddress: Option.Option<string> | undefined
      readonly protocol: "http" | "https" | undefined
    }
  ) {
    super(source, (cause) => this.parseError("Parse", cause), view?.remoteAddress)
    this.response = response
    if (view !== undefined) {
      this.root = view.root
      this.url = view.url
      this.headersOverride = view.headers
      this.peerAddressOverride = view.peerAddress
      this.protocol = view.protocol
      return
    }
    this.root = undefined
    this.peerAddressOverride = undefined
    this.protocol = undefined
    const url = source.url!
    const target = url.charCodeAt(0) === 47 /* "/" */ ? undefined : absoluteTarget(url)
    if (target === undefined) {
      this.url = url
      this.headersOverride = undefined
    } else {
      this.url = target.pathname + target.search
      this.headersOverride = Headers.fromInput({ ...source.headers, host: target.host } as Record<string, string | Array<string>>)
    }
  }

  /** Reads the body, then calls `then` with this request ({@link ReadBodyFirst}). */
  readBodyFirst(then: (request: LeanServerRequest) => void): void {
    const reader = this.reader ??= new BodyReader(this)
    reader.prefetch(() => then(this))
  }

  /** The error every body reader fails with. */
  parseError(reason: "Parse" | "BodyTooLarge", cause?: unknown): HttpServerError.HttpServerError {
    return new HttpServerError.HttpServerError({
      reason: new HttpServerError.RequestParseError({ request: this, reason, cause })
    })
  }

  get method(): string {
    return this.source.method!
  }

  override get headers(): Headers.Headers {
    if (this.headersOverride !== undefined) return this.headersOverride
    // Node lowercases names and joins repeated headers, except `set-cookie` (an array), joined here as `fromInput` does.
    const headers: Record<string, string | Array<string> | undefined> = { ...this.source.headers }
    const setCookie = headers["set-cookie"]
    if (setCookie !== undefined && typeof setCookie !== "string") headers["set-cookie"] = setCookie.join(", ")
    return this.headersOverride = Headers.fromRecordUnsafe(headers as Record<string, string>)
  }

  get cookies(): Record<string, string> {
    return this.cachedCookies ??= Cookies.parseHeader(this.headers.cookie ?? "")
  }

  get peerAddress(): Option.Option<string> {
    return this.peerAddressOverride ?? this.remoteAddress
  }

  get originalUrl(): string {
    const url = this.source.url!
    const host = this.source.headers.host
    if (url[0] !== "/" || host === undefined) return url
    const encrypted = (this.source.socket as Tls.TLSSocket | undefined)?.encrypted
    return `${encrypted ? "https" : "http"}://${host}${url}`
  }

  /** The body as `f` of its bytes, read once (under the fiber's `MaxBodySize`) and shared with `modify` views. */
  private readBody<A>(f: (body: Buffer) => A): Effect.Effect<A, HttpServerError.HttpServerError> {
    const root = this.root ?? this
    return Effect.withFiber((fiber): Effect.Effect<A, HttpServerError.HttpServerError> => {
      const maxBytes = maxBytesOf(fiber.getRef(HttpIncomingMessage.MaxBodySize))
      const read = (root.reader ??= new BodyReader(root)).read(maxBytes)
      if (!Exit.isExit(read)) return Effect.map(read, f)
      const exit = read as Exit.Exit<Buffer, HttpServerError.HttpServerError>
      return exit._tag === "Success" ? Exit.succeed(f(exit.value)) : Exit.failCause(exit.cause)
    })
  }

  // `stream`, `multipart` and `multipartStream` read the collected body when the adapter already read it.
  protected override get bodySource(): Readable {
    const root = this.root ?? this
    const body = root.reader?.body
    return body === undefined ? this.source : Readable.from([body], { objectMode: false })
  }

  override get text(): Effect.Effect<string, HttpServerError.HttpServerError> {
    return this.readBody(decodeText)
  }

  override get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpServerError.HttpServerError> {
    return this.readBody(toArrayBuffer)
  }

  get multipart(): Effect.Effect<Multipart.Persisted, Multipart.MultipartError, Scope.Scope | FileSystem.FileSystem | Path.Path> {
    return this.multipartEffect ??= Effect.runSync(Effect.cached(
      Effect.suspend(() => NodeMultipart.persisted(this.bodySource, this.source.headers))
    ))
  }

  get multipartStream() {
    return Stream.suspend(() => NodeMultipart.stream(this.bodySource, this.source.headers))
  }

  get upgrade(): Effect.Effect<Socket.Socket, HttpServerError.HttpServerError> {
    return this.upgradeWith({})
  }

  upgradeWith(
    _options: { readonly headers?: Headers.Input | undefined }
  ): Effect.Effect<Socket.Socket, HttpServerError.HttpServerError> {
    return Effect.fail(
      new HttpServerError.HttpServerError({
        reason: new HttpServerError.RequestParseError({
          request: this,
          description: "not an upgradeable ServerRequest (LeanNodeHttpServer leaves the upgrade event to the http.Server)"
        })
      })
    )
  }

  modify(options: {
    readonly url?: string | undefined
    readonly headers?: Headers.Headers | undefined
    readonly remoteAddress?: Option.Option<string> | undefined
    readonly peerAddress?: Option.Option<string> | undefined
    readonly protocol?: "http" | "https" | undefined
  }): LeanServerRequest {
    return new LeanServerRequest(this.source, this.response, {
      root: this.root ?? this,
      url: options.url ?? this.url,
      headers: options.headers ?? this.headersOverride,
      remoteAddress: "remoteAddress" in options ? options.remoteAddress : this.remoteAddressOverride,
      peerAddress: options.peerAddress ?? this.peerAddressOverride,
      protocol: options.protocol ?? this.protocol
    })
  }

  override toString(): string {
    return `ServerRequest(${this.method} ${UrlParams.redactUrl(this.url)})`
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "HttpServerRequest",
      method: this.method,
      url: UrlParams.redactUrl(this.originalUrl)
    })
  }
}
