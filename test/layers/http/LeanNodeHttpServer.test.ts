/**
 * The lean Node HTTP adapter (layers/http/LeanNodeHttpServer.ts) on its own,
 * with a small router: body limits on both read paths (collected before the
 * app runs, read on demand), client aborts, the direct response writer
 * (headers, cookies, empty bodies), the fallback to platform-node's writer
 * (streams, raw bodies, HEAD), graceful shutdown, the request surface the
 * gateway relies on, and the free `upgrade` event.
 */
import { NodeHttpServerRequest } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ByteSize, Effect, Exit, Layer, ManagedRuntime, Scope, Stream } from "effect"
import {
  HttpIncomingMessage,
  HttpRouter,
  HttpServer,
  type HttpServerError,
  HttpServerRequest,
  HttpServerResponse,
  UrlParams
} from "effect/http"
import { Agent, createServer, type IncomingHttpHeaders, request as httpRequest, type Server } from "node:http"
import { Readable } from "node:stream"
import { WebSocket, WebSocketServer } from "ws"
import * as LeanNodeHttpServer from "../../../layers/http/LeanNodeHttpServer.ts"
import { eventually } from "../../support/eventually.ts"

interface Running {
  readonly server: Server
  readonly url: URL
  readonly close: () => Promise<void>
}

/** Serves `routes` on a fresh `node:http` server (127.0.0.1, any port) through the lean adapter. */
const serve = async <E, R, A = never>(
  routes: Layer.Layer<never, E, R>,
  resources: Layer.Layer<A> = Layer.empty as Layer.Layer<A>
): Promise<Running> => {
  const server = createServer()
  const runtime = ManagedRuntime.make(
    // Route layers also require the router's request-level markers, which `HttpRouter.serve` discharges.
    HttpRouter.serve(routes as Layer.Layer<never, E, HttpRouter.HttpRouter>, { disableLogger: true, disableListenLog: true }).pipe(
      Layer.provideMerge(LeanNodeHttpServer.layer(() => server, { host: "127.0.0.1", port: 0 })),
      Layer.provideMerge(resources)
    )
  )
  const http = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
  return { server, url: new URL(HttpServer.formatAddress(http.address)), close: () => runtime.dispose() }
}

interface Reply {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

interface SendOptions {
  readonly method?: string
  readonly headers?: Record<string, string | number>
  /** Sent with content-length when a string, chunked when an array. */
  readonly body?: string | ReadonlyArray<string>
  readonly agent?: Agent
}

const send = (running: Running, path: string, options: SendOptions = {}): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const chunked = Array.isArray(options.body)
    const req = httpRequest({
      host: running.url.hostname,
      port: running.url.port,
      path,
      method: options.method ?? (options.body === undefined ? "GET" : "POST"),
      agent: options.agent ?? false,
      headers: {
        ...(typeof options.body === "string" ? { "content-length": Buffer.byteLength(options.body) } : {}),
        ...(chunked ? { "transfer-encoding": "chunked" } : {}),
        ...options.headers
      }
    }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (d: string) => (body += d))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e)))
    if (chunked) for (const chunk of options.body as ReadonlyArray<string>) req.write(chunk)
    req.end(typeof options.body === "string" ? options.body : undefined)
  })

/** A request that is left open: its body is written in parts, or the client goes away. */
const openRequest = (running: Running, path: string, headers: Record<string, string | number>) => {
  const req = httpRequest({ host: running.url.hostname, port: running.url.port, path, method: "POST", agent: false, headers })
  const reply = new Promise<Reply>((resolve, reject) => {
    req.on("response", (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (d: string) => (body += d))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
  })
  reply.catch(() => {})
  req.flushHeaders()
  return { req, reply }
}


/** `reason._tag:reason.reason` of a failed body read, answered with 413 or 400; the body text otherwise. */
const readText = (limitBytes: number) =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => request.text).pipe(
    Effect.map((text) => HttpServerResponse.text(text)),
    Effect.catch((error: HttpServerError.HttpServerError) => {
      const reason = error.reason
      const detail = reason._tag === "RequestParseError" ? `${reason._tag}:${reason.reason}` : reason._tag
      return Effect.succeed(HttpServerResponse.text(detail, { status: detail.endsWith("BodyTooLarge") ? 413 : 400 }))
    }),
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limitBytes))
  )

describe("request bodies and the body limit", () => {
  let running: Running
  beforeAll(async () => {
    running = await serve(Layer.mergeAll(
      HttpRouter.add("POST", "/small", readText(1024)),
      HttpRouter.add("POST", "/large", readText(64 * 1024)),
      HttpRouter.add(
        "POST",
        "/stream",
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => Stream.runCollect(request.stream)).pipe(
          Effect.map((chunks) => HttpServerResponse.text(Buffer.concat(chunks).toString("utf8")))
        )
      ),
      HttpRouter.add(
        "POST",
        "/form",
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => request.urlParamsBody).pipe(
          Effect.map((params) => HttpServerResponse.text(JSON.stringify(UrlParams.toRecord(params))))
        )
      )
    ))
  })
  afterAll(() => running.close())

  it("reads small declared, large declared and chunked bodies under the limit", async () => {
    expect(await send(running, "/small", { body: "hello" })).toMatchObject({ status: 200, body: "hello" })
    const large = "x".repeat(40 * 1024)
    expect(await send(running, "/large", { body: large })).toMatchObject({ status: 200, body: large })
    expect(await send(running, "/small", { body: ["he", "llo"] })).toMatchObject({ status: 200, body: "hello" })
  })

  it("drops a leading byte order mark, as TextDecoder does", async () => {
    expect((await send(running, "/small", { body: "\uFEFF{}" })).body).toBe("{}")
  })

  it("fails a small declared body over the limit with RequestParseError BodyTooLarge (413); the connection stays usable", async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const res = await send(running, "/small", { body: "y".repeat(2000), agent })
      expect(res).toMatchObject({ status: 413, body: "RequestParseError:BodyTooLarge" })
      expect(await send(running, "/small", { body: "again", agent })).toMatchObject({ status: 200, body: "again" })
    } finally {
      agent.destroy()
    }
  })

  it("fails a large declared body over the limit without reading it (413)", async () => {
    // Only the headers are sent: the answer cannot depend on reading the body.
    const { req, reply } = openRequest(running, "/large", { "content-length": 100 * 1024 })
    try {
      expect(await reply).toMatchObject({ status: 413, body: "RequestParseError:BodyTooLarge" })
    } finally {
      req.destroy()
    }
    expect(await send(running, "/large", { body: "z".repeat(100 * 1024) })).toMatchObject({ status: 413 })
  })

  it("cuts a chunked body at the limit (413)", async () => {
    const res = await send(running, "/small", { body: ["{\"a\":\"", "y".repeat(800), "z".repeat(800), "\"}"] })
    expect(res).toMatchObject({ status: 413, body: "RequestParseError:BodyTooLarge" })
  })

  it("serves `stream` and `urlParamsBody`", async () => {
    expect(await send(running, "/stream", { body: "streamed body" })).toMatchObject({ status: 200, body: "streamed body" })
    expect(await send(running, "/stream", { body: ["chunked ", "body"] })).toMatchObject({ status: 200, body: "chunked body" })
    const form = await send(running, "/form", { body: "a=1&b=two", headers: { "content-type": "application/x-www-form-urlencoded" } })
    expect(JSON.parse(form.body)).toEqual({ a: "1", b: "two" })
  })
})

describe("client aborts", () => {
  let running: Running
  let exits: Array<Exit.Exit<unknown, unknown>> = []
  let entered = 0
  let started = 0
  beforeAll(async () => {
    const hang = Effect.sync(() => entered++).pipe(
      Effect.andThen(HttpServerRequest.HttpServerRequest),
      Effect.flatMap((request) => request.text),
      Effect.tap(() => Effect.sync(() => started++)),
      Effect.andThen(Effect.never),
      Effect.onExit((exit) => Effect.sync(() => exits.push(exit)))
    )
    running = await serve(HttpRouter.add("POST", "/hang", hang))
  })
  afterAll(() => running.close())

  it("interrupts the request fiber when the client goes away while its (chunked) body is read", async () => {
    exits = []
    entered = 0
    const { req } = openRequest(running, "/hang", { "transfer-encoding": "chunked" })
    req.write("partial")
    await eventually(() => entered === 1, "the app to start")
    req.destroy()
    await eventually(() => exits.length === 1, "the request fiber to end")
    expect(Exit.hasInterrupts(exits[0])).toBe(true)
  })

  it("interrupts the request fiber when the client goes away after its body was read", async () => {
    exits = []
    started = 0
    const { req } = openRequest(running, "/hang", { "content-length": 5 })
    req.write("12345")
    await eventually(() => started === 1, "the body to be read")
    req.destroy()
    await eventually(() => exits.length === 1, "the request fiber to end")
    expect(Exit.hasInterrupts(exits[0])).toBe(true)
  })

  it("runs the app from the headers alone and interrupts it when the client abandons a small declared body", async () => {
    exits = []
    entered = 0
    started = 0
    const { req } = openRequest(running, "/hang", { "content-length": 100 })
    req.write("only ten b")
    await eventually(() => entered === 1, "the app to start before the body is complete")
    req.destroy()
    await eventually(() => exits.length === 1, "the request fiber to end")
    expect(started).toBe(0)
    expect(Exit.isFailure(exits[0])).toBe(true)
  })
})

describe("reading the body first (ReadBodyFirst)", () => {
  let running: Running
  let accepted = 0
  beforeAll(async () => {
    // Whether the body had arrived in full when the app started, then the body the app reads.
    const peek = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      const complete = (request.source as { readonly complete: boolean }).complete
      return Effect.map(request.text, (text) => HttpServerResponse.text(`${complete} ${text}`))
    })
    running = await serve(
      Layer.mergeAll(HttpRouter.add("POST", "/peek", peek), HttpRouter.add("POST", "/small", readText(8))),
      // In the serving fiber's context, where the adapter reads it.
      Layer.succeed(LeanNodeHttpServer.ReadBodyFirst, (request) => {
        if (request.headers["x-first"] !== "yes") return false
        accepted++
        return true
      })
    )
  })
  afterAll(() => running.close())

  it("runs the app once the body has arrived for the requests it accepts, at once for the others", async () => {
    const first = openRequest(running, "/peek", { "content-length": 5, "x-first": "yes" })
    const other = openRequest(running, "/peek", { "content-length": 5 })
    await eventually(() => accepted === 1, "the predicate to accept the first request")
    first.req.end("abcde")
    other.req.end("vwxyz")
    expect(await first.reply).toMatchObject({ status: 200, body: "true abcde" })
    expect(await other.reply).toMatchObject({ status: 200, body: "false vwxyz" })
  })

  it("applies the app's body limit to a body read first (413)", async () => {
    expect(await send(running, "/small", { body: "12345678", headers: { "x-first": "yes" } })).toMatchObject({ status: 200, body: "12345678" })
    expect(await send(running, "/small", { body: "123456789", headers: { "x-first": "yes" } }))
      .toMatchObject({ status: 413, body: "RequestParseError:BodyTooLarge" })
  })
})

describe("responses", () => {
  let running: Running
  let released = false
  beforeAll(async () => {
    const withCookies = HttpServerResponse.text("cookies", { headers: { "x-custom": "1" } }).pipe(
      HttpServerResponse.setCookieUnsafe("a", "1", { httpOnly: true, path: "/" }),
      HttpServerResponse.setCookieUnsafe("b", "2", { sameSite: "strict" })
    )
    // The request scope must outlive a streamed body: each chunk reports whether the scoped resource is released.
    const streamed = Effect.gen(function*() {
      released = false
      yield* Effect.addFinalizer(() => Effect.sync(() => (released = true)))
      return HttpServerResponse.stream(
        Stream.fromIterable(["a", "b", "c"]).pipe(
          Stream.tap(() => Effect.sleep("20 millis")),
          Stream.map((s) => `${s}:${released};`),
          Stream.encodeText
        )
      )
    })
    running = await serve(Layer.mergeAll(
      HttpRouter.add("GET", "/cookies", Effect.succeed(withCookies)),
      HttpRouter.add("GET", "/no-content", Effect.sync(() => HttpServerResponse.setHeader(HttpServerResponse.empty(), "content-length", "10"))),
      HttpRouter.add("GET", "/empty-200", Effect.sync(() => HttpServerResponse.empty({ status: 200 }))),
      HttpRouter.add("GET", "/bytes", Effect.sync(() => HttpServerResponse.uint8Array(new Uint8Array([104, 105]), { status: 201 }))),
      HttpRouter.add("GET", "/stream", streamed),
      HttpRouter.add("GET", "/raw", Effect.sync(() => HttpServerResponse.raw(Readable.from(["raw ", "body"]))))
    ))
  })
  afterAll(() => running.close())

  it("writes status, headers, content-type/-length and every cookie as set-cookie", async () => {
    const res = await send(running, "/cookies")
    expect(res.status).toBe(200)
    expect(res.body).toBe("cookies")
    expect(res.headers["content-type"]).toBe("text/plain")
    expect(res.headers["content-length"]).toBe("7")
    expect(res.headers["x-custom"]).toBe("1")
    expect(res.headers["set-cookie"]).toEqual(["a=1; Path=/; HttpOnly", "b=2; SameSite=Strict"])
  })

  it("writes byte bodies with their status", async () => {
    const res = await send(running, "/bytes")
    expect(res).toMatchObject({ status: 201, body: "hi" })
    expect(res.headers["content-type"]).toBe("application/octet-stream")
    expect(res.headers["content-length"]).toBe("2")
  })

  it("answers 204 without a body or content-length, and an empty 200 with an empty body", async () => {
    const noContent = await send(running, "/no-content")
    expect(noContent.status).toBe(204)
    expect(noContent.body).toBe("")
    expect(noContent.headers["content-length"]).toBeUndefined()
    expect(await send(running, "/empty-200")).toMatchObject({ status: 200, body: "" })
  })

  it("falls back to platform-node for a streamed body and keeps the request scope open until it is written", async () => {
    const res = await send(running, "/stream")
    expect(res.status).toBe(200)
    expect(res.headers["transfer-encoding"]).toBe("chunked")
    expect(res.body).toBe("a:false;b:false;c:false;")
    await eventually(() => released, "the request scope to be released")
  })

  it("falls back for raw Node streams and HEAD requests", async () => {
    expect(await send(running, "/raw")).toMatchObject({ status: 200, body: "raw body" })
    const head = await send(running, "/cookies", { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.body).toBe("")
    expect(head.headers["content-length"]).toBe("7")
    expect(head.headers["set-cookie"]).toHaveLength(2)
  })
})

describe("the request", () => {
  let running: Running
  beforeAll(async () => {
    running = await serve(HttpRouter.add(
      "GET",
      "/info",
      Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
        const source = request.source as { socket?: { encrypted?: boolean } }
        const modified = request.modify({ url: "/elsewhere" })
        return Effect.succeed(HttpServerResponse.text(JSON.stringify({
          method: request.method,
          url: request.url,
          originalUrl: request.originalUrl,
          remoteAddress: request.remoteAddress,
          encrypted: source.socket?.encrypted ?? null,
          sameSource: NodeHttpServerRequest.toIncomingMessage(request) === request.source,
          cookie: request.cookies["session"],
          header: request.headers["x-probe"],
          modifiedUrl: modified.url,
          modifiedHeader: modified.headers["x-probe"]
        })))
      })
    ))
  })
  afterAll(() => running.close())

  it("exposes method, urls, remoteAddress, the Node source, cookies, headers and modify", async () => {
    const res = await send(running, "/info?q=1", { headers: { cookie: "session=abc; other=x", "x-probe": "yes" } })
    expect(JSON.parse(res.body)).toEqual({
      method: "GET",
      url: "/info?q=1",
      originalUrl: `http://${running.url.host}/info?q=1`,
      remoteAddress: { _id: "Option", _tag: "Some", value: "127.0.0.1" },
      encrypted: null,
      sameSource: true,
      cookie: "abc",
      header: "yes",
      modifiedUrl: "/elsewhere",
      modifiedHeader: "yes"
    })
  })
})

describe("the upgrade event", () => {
  it("is left free for a WebSocket server attached to the same http.Server", async () => {
    const running = await serve(HttpRouter.add("GET", "/plain", Effect.succeed(HttpServerResponse.text("plain"))))
    const wss = new WebSocketServer({ noServer: true })
    try {
      expect(running.server.listenerCount("upgrade")).toBe(0)
      running.server.on("upgrade", (request, socket, head) =>
        wss.handleUpgrade(request, socket, head, (ws) => ws.on("message", (data) => ws.send(`echo ${data}`))))
      const ws = new WebSocket(`ws://${running.url.host}/ws`)
      const reply = await new Promise<string>((resolve, reject) => {
        ws.on("open", () => ws.send("hi"))
        ws.on("message", (data) => resolve(String(data)))
        ws.on("error", reject)
      })
      ws.close()
      expect(reply).toBe("echo hi")
      expect(await send(running, "/plain")).toMatchObject({ status: 200, body: "plain" })
    } finally {
      wss.close()
      await running.close()
    }
  })
})

describe("graceful shutdown", () => {
  it("stops accepting, finishes an in-flight request, then runs the later finalizers", async () => {
    const events: Array<string> = []
    const resource = Layer.effectDiscard(Effect.addFinalizer(() => Effect.sync(() => events.push("resource closed"))))
    const running = await serve(
      HttpRouter.add(
        "POST",
        "/slow",
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          events.push("request started")
          return request.text
        }).pipe(
          Effect.map((text) => {
            events.push("request done")
            return HttpServerResponse.text(`got ${text}`)
          })
        )
      ),
      resource
    )
    const { req, reply } = openRequest(running, "/slow", { "transfer-encoding": "chunked" })
    req.write("first ")
    await eventually(() => events.includes("request started"), "the request to reach the app")
    const closed = running.close().then(() => events.push("closed"))
    await eventually(() => !running.server.listening, "the server to stop listening")
    await expect(send(running, "/slow", { body: "new" })).rejects.toThrow()
    req.end("second")
    expect(await reply).toMatchObject({ status: 200, body: "got first second" })
    await closed
    expect(events).toEqual(["request started", "request done", "resource closed", "closed"])
  })
})

describe("a request that arrives before the app is installed", () => {
  it("waits, body unread, and is answered once `serve` installs the app", async () => {
    const server = createServer()
    const runtime = ManagedRuntime.make(LeanNodeHttpServer.layer(() => server, { host: "127.0.0.1", port: 0 }))
    try {
      const http = await runtime.runPromise(Effect.service(HttpServer.HttpServer))
      const url = new URL(HttpServer.formatAddress(http.address))
      // The server listens now, with no app yet: the request arrives and must wait.
      const arrived = new Promise<void>((resolve) => server.once("request", () => resolve()))
      const reply = send({ server, url, close: () => runtime.dispose() }, "/early", { method: "POST", body: "before serve" })
      await arrived
      const app = Effect.gen(function*() {
        const request = yield* HttpServerRequest.HttpServerRequest
        return HttpServerResponse.text(`late app got ${yield* request.text}`)
      })
      const scope = await runtime.runPromise(Scope.make())
      await runtime.runPromise(Effect.provideService(http.serve(app), Scope.Scope, scope))
      expect(await reply).toMatchObject({ status: 200, body: "late app got before serve" })
      await runtime.runPromise(Scope.close(scope, Exit.void))
    } finally {
      await runtime.dispose()
    }
  })
})
