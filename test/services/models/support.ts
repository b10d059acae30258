/**
 * The model catalog on a test database, and a local stand-in for models.dev
 * (a node:http server whose answers each test sets), for the catalog's tests.
 */
import { NodeServices } from "@effect/platform-node"
import { Clock, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Models, ModelsConfig } from "../../../services/models/Models.ts"
import { ModelsRepo } from "../../../services/models/ModelsRepo.ts"
import type { TestDatabaseServices } from "../../support/databases.ts"

/** What the stand-in answers: a status, a body and an ETag, or nothing at all (`hang`) until released. */
export interface Answer {
  readonly status?: number
  readonly body?: string
  readonly etag?: string
  /** Answer 304 when the request's `If-None-Match` equals `etag`. */
  readonly conditional?: boolean
  /** Hold the request until {@link FakeModelsDev.release} (then answer the rest), or forever. */
  readonly hang?: boolean
}

/** A local models.dev: counts and records requests to `/api.json`. */
export interface FakeModelsDev {
  readonly url: string
  /** The `If-None-Match` header of each request, in order (`undefined` when absent). */
  readonly requests: Array<string | undefined>
  answer: Answer
  /** Resolves once `n` requests have arrived. */
  readonly received: (n: number) => Promise<void>
  /** Answers the requests held by `hang`. */
  readonly release: () => void
  readonly close: () => Promise<void>
}

/** Starts a {@link FakeModelsDev} on 127.0.0.1 (port 0). */
export const startFakeModelsDev = async (): Promise<FakeModelsDev> => {
  const held: Array<() => void> = []
  const waiters: Array<{ n: number; resolve: () => void }> = []
  const open = new Set<ServerResponse>()
  const fake: FakeModelsDev = {
    url: "",
    requests: [],
    answer: { status: 404, body: "not found" },
    received: (n) =>
      new Promise((resolve) => {
        if (fake.requests.length >= n) resolve()
        else waiters.push({ n, resolve })
      }),
    release: () => {
      for (const answer of held.splice(0)) answer()
    },
    close: async () => {
      for (const res of open) res.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
  const respond = (req: IncomingMessage, res: ServerResponse, answer: Answer) => {
    const ifNoneMatch = req.headers["if-none-match"]
    if (answer.conditional === true && answer.etag !== undefined && ifNoneMatch === answer.etag) {
      res.writeHead(304, { etag: answer.etag }).end()
      return
    }
    res.writeHead(answer.status ?? 200, {
      "content-type": "application/json",
      ...(answer.etag === undefined ? {} : { etag: answer.etag })
    }).end(answer.body ?? "")
  }
  const server = createServer((req, res) => {
    if (req.url !== "/api.json") {
      res.writeHead(404).end()
      return
    }
    open.add(res)
    res.on("close", () => open.delete(res))
    fake.requests.push(req.headers["if-none-match"])
    for (const w of waiters.filter((w) => fake.requests.length >= w.n)) {
      waiters.splice(waiters.indexOf(w), 1)
      w.resolve()
    }
    const answer = fake.answer
    if (answer.hang === true) held.push(() => respond(req, res, { ...answer, hang: false }))
    else respond(req, res, answer)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  ;(fake as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return fake
}

/** A small valid catalog in models.dev's shape (with a field the gateway drops). */
export const acmeCatalog = (price = 1) =>
  JSON.stringify({
    acme: {
      id: "acme",
      name: "Acme AI",
      npm: "@ai-sdk/openai-compatible",
      api: "https://api.acme.example/v1",
      env: ["ACME_API_KEY"],
      doc: "https://acme.example/models",
      models: {
        "rocket-1": {
          id: "rocket-1",
          name: "Rocket 1",
          tool_call: true,
          open_weights: false,
          cost: { input: price, output: price * 4 },
          limit: { context: 64000, output: 4096 }
        },
        "rocket-mini": { id: "rocket-mini", name: "Rocket mini", limit: { context: 32000, output: 2048 } }
      }
    }
  })

/** One catalog instance over a database client, fetching from `url`; `withRefresh`: with its background job. */
export const modelsInstance = (url: string, disableFetch = false, withRefresh = false) =>
  (withRefresh ? Models.layerWithRefresh : Models.layerNoDeps).pipe(
    Layer.provide([
      ModelsRepo.layer,
      Layer.succeed(ModelsConfig, ModelsConfig.of({ url, disableFetch })),
      FetchHttpClient.layer,
      NodeServices.layer
    ])
  )

/** The database client, on the live clock (its pool's timers must not wait for the TestClock). */
export const liveClockDb = (db: Layer.Layer<TestDatabaseServices, unknown>) =>
  db.pipe(Layer.provide(Layer.succeed(Clock.Clock, Clock.Clock.defaultValue())))
