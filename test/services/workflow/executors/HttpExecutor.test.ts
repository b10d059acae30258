/**
 * The Http executor against a local node:http server: success (JSON and
 * text), non-2xx, an expected status named by the postcondition, a timeout
 * (a server that never answers), a network error (a closed port), the body
 * cap, no redirect following, invalid args.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { HttpExecutor, MAX_HTTP_BODY_BYTES } from "../../../../services/workflow/executors/HttpExecutor.ts"
import { closedPort, context, failureOf, localServer, step } from "./support.ts"

const withExecutor = <A, E>(body: (run: Effect.Success<typeof HttpExecutor>) => Effect.Effect<A, E, import("effect").Scope.Scope>) =>
  Effect.scoped(Effect.flatMap(HttpExecutor, body)).pipe(Effect.provide(FetchHttpClient.layer))

describe("HttpExecutor", () => {
  it.live("returns status, headers and the parsed JSON body; sends method, headers and body", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const seen: Array<{ method?: string; header?: string | string[]; body: string }> = []
        const { url } = yield* localServer((req, res) => {
          let body = ""
          req.on("data", (c) => (body += c))
          req.on("end", () => {
            seen.push({ method: req.method, header: req.headers["x-test"], body })
            res.writeHead(201, { "content-type": "application/json", "x-answer": "yes" })
            res.end(JSON.stringify({ ok: true, items: [1, 2] }))
          })
        })
        const outcome = yield* run(
          step("Http", { method: "post", url: `${url}/things`, headers: { "x-test": "1" }, body: { a: 1 } }),
          context()
        )
        expect(outcome.result).toMatchObject({
          status: 201,
          headers: { "content-type": "application/json", "x-answer": "yes" },
          body: { ok: true, items: [1, 2] },
          body_truncated: false
        })
        expect(seen).toEqual([{ method: "POST", header: "1", body: "{\"a\":1}" }])

        const get = yield* run(step("Http", { url: `${url}/t` }), context())
        expect(get.result).toMatchObject({ status: 201 })
        expect(seen[1]).toEqual({ method: "GET", header: undefined, body: "" })
      })
    ))

  it.live("a non-JSON body is text; 204 has an empty body", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const { url } = yield* localServer((req, res) => {
          if (req.url === "/empty") {
            res.writeHead(204)
            res.end()
          } else {
            res.writeHead(200, { "content-type": "text/plain" })
            res.end("hello")
          }
        })
        expect((yield* run(step("Http", { url }), context())).result).toMatchObject({ status: 200, body: "hello" })
        expect((yield* run(step("Http", { url: `${url}/empty` }), context())).result).toMatchObject({ status: 204, body: "" })
      })
    ))

  it.live("a status outside 200–299 fails with http_status, unless postcondition.status names it", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const { url } = yield* localServer((_req, res) => {
          res.writeHead(404, { "content-type": "application/json" })
          res.end("{\"error\":\"nope\"}")
        })
        const failed = yield* failureOf(run(step("Http", { url }), context()))
        expect(failed.code).toBe("http_status")
        expect(failed.message).toContain("404")
        expect(failed.result).toMatchObject({ status: 404, body: { error: "nope" } })

        const expected = yield* run(step("Http", { url }, { postcondition: { status: 404 } }), context())
        expect(expected.result).toMatchObject({ status: 404 })
        const otherExpected = yield* failureOf(run(step("Http", { url }, { postcondition: { status: 410 } }), context()))
        expect(otherExpected.code).toBe("http_status")
      })
    ))

  it.live("a server that never answers fails with timeout after the attempt's timeout", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const { url } = yield* localServer(() => {
          // never answers
        })
        const started = Date.now()
        const failed = yield* failureOf(run(step("Http", { url }), context({ timeout_ms: 200 })))
        expect(failed.code).toBe("timeout")
        expect(failed.message).toContain("200 ms")
        expect(Date.now() - started).toBeLessThan(5_000)
      })
    ))

  it.live("a closed port fails with network_error", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const port = yield* Effect.promise(closedPort)
        const failed = yield* failureOf(run(step("Http", { url: `http://127.0.0.1:${port}/` }), context()))
        expect(failed.code).toBe("network_error")
        expect(failed.message).toContain(`127.0.0.1:${port}`)
      })
    ))

  it.live("caps the body at 64 KiB and then keeps it as text", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const big = JSON.stringify({ data: "x".repeat(MAX_HTTP_BODY_BYTES * 2) })
        const { url } = yield* localServer((_req, res) => {
          res.writeHead(200, { "content-type": "application/json" })
          res.end(big)
        })
        const { result } = yield* run(step("Http", { url }), context())
        const r = result as { body: unknown; body_truncated: boolean }
        expect(r.body_truncated).toBe(true)
        expect(r.body).toBe(big.slice(0, MAX_HTTP_BODY_BYTES))
      })
    ))

  it.live("does not follow redirects", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        let followed = 0
        const { url } = yield* localServer((req, res) => {
          if (req.url === "/target") followed++
          res.writeHead(req.url === "/target" ? 200 : 302, { location: "/target" })
          res.end()
        })
        const failed = yield* failureOf(run(step("Http", { url: `${url}/start` }), context()))
        expect(failed.code).toBe("http_status")
        expect(failed.result).toMatchObject({ status: 302, headers: { location: "/target" } })
        expect(followed).toBe(0)
      })
    ))

  it.live("rejects invalid args with invalid_action", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        for (
          const args of [{}, { url: "not a url" }, { url: "file:///etc/passwd" }, { url: "http://x", method: "NOPE" }, {
            url: "http://x",
            headers: { a: 1 }
          }, { url: "http://x", body: "b" }]
        ) {
          expect((yield* failureOf(run(step("Http", args), context()))).code).toBe("invalid_action")
        }
      })
    ))
})
