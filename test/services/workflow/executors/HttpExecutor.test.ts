/**
 * The Http executor against a local node:http server: success (JSON and
 * text), non-2xx, an expected status named by the postcondition, a timeout
 * (a server that never answers), a network error (a closed port), the body
 * cap, no redirect following, invalid args; and (issue 20) only allow-listed
 * response headers, secret handles in headers, Idempotency-Key, trace headers
 * only to traced targets, the post-DNS egress check and the connection pinned
 * to the checked address.
 */
import { NodeDns } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, type Layer, type Scope } from "effect"
import { Dns } from "effect/net"
import type * as http from "node:http"
import type { ActionExecutor } from "../../../../services/workflow/executors/types.ts"
import { HttpExecutor, type HttpExecutorOptions, HttpTraceTargets, MAX_HTTP_BODY_BYTES } from "../../../../services/workflow/executors/HttpExecutor.ts"
import type { HttpStepContext } from "../../../../services/workflow/executors/HttpStepContext.ts"
import { closedPort, context, failureOf, httpStepContext, localServer, step } from "./support.ts"

const withExecutor = <A, E>(
  body: (run: ActionExecutor) => Effect.Effect<A, E, Scope.Scope>,
  options: {
    readonly http?: Layer.Layer<HttpStepContext>
    readonly dns?: Layer.Layer<Dns.Dns, unknown>
    readonly executor?: HttpExecutorOptions
  } = {}
) =>
  Effect.scoped(Effect.flatMap(HttpExecutor.make, body)).pipe(
    Effect.provideService(HttpTraceTargets, options.executor?.traceTargets ?? []),
    Effect.provide(options.http ?? httpStepContext().layer),
    Effect.provide(options.dns ?? NodeDns.layer)
  )

/** A server that answers 200 `{}` and records each request's headers. */
const recordingServer = Effect.gen(function*() {
  const seen: Array<http.IncomingHttpHeaders> = []
  const server = yield* localServer((req, res) => {
    seen.push(req.headers)
    res.writeHead(200, { "content-type": "application/json" })
    res.end("{}")
  })
  return { ...server, seen }
})

describe("HttpExecutor", () => {
  it.live("returns status, the kept headers and the parsed JSON body; sends method, headers and body", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const seen: Array<{ method?: string; header?: string | string[]; body: string }> = []
        const { url } = yield* localServer((req, res) => {
          let body = ""
          req.on("data", (c) => (body += c))
          req.on("end", () => {
            seen.push({ method: req.method, header: req.headers["x-test"], body })
            res.writeHead(201, {
              "content-type": "application/json",
              "x-answer": "yes",
              "set-cookie": "session=s3cret",
              etag: "\"v1\""
            })
            res.end(JSON.stringify({ ok: true, items: [1, 2] }))
          })
        })
        const outcome = yield* run(
          step("Http", { method: "post", url: `${url}/things`, headers: { "x-test": "1" }, body: { a: 1 } }),
          context()
        )
        expect(outcome.result).toMatchObject({ status: 201, body: { ok: true, items: [1, 2] }, body_truncated: false })
        // Only allow-listed response headers are kept: never set-cookie, nor the target's other headers.
        expect((outcome.result as { headers: unknown }).headers).toEqual({
          "content-type": "application/json",
          etag: "\"v1\"",
          date: expect.any(String)
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

  it.live("keeps location redacted like a step URL; drops set-cookie and vendor headers of a failed attempt too", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const { url } = yield* localServer((_req, res) => {
          res.writeHead(302, { location: "https://user:pw@idp.example/cb?code=1&access_token=t0k3n", "set-cookie": "a=b", "x-debug-token": "d" })
          res.end()
        })
        const failed = yield* failureOf(run(step("Http", { url }), context()))
        expect((failed.result as { headers: Record<string, string> }).headers).toEqual({
          location: "https://[redacted]@idp.example/cb?code=1&access_token=[redacted]",
          date: expect.any(String)
        })
      })
    ))

  it.live("resolves a {secret_handle} header value for the request, recorded with its purpose; an unknown handle fails", () => {
    const secrets = httpStepContext({ secrets: { sec_1: "Bearer real-value" } })
    return withExecutor((run) =>
      Effect.gen(function*() {
        const target = yield* recordingServer
        const outcome = yield* run(
          step("Http", { url: target.url, headers: { Authorization: { secret_handle: "sec_1" }, "x-plain": "p" } }),
          context({ run_id: "run-7", step_index: 2 })
        )
        expect(outcome.result).toMatchObject({ status: 200 })
        expect(target.seen[0]).toMatchObject({ authorization: "Bearer real-value", "x-plain": "p" })
        expect(secrets.resolutions).toEqual([{ handle_id: "sec_1", purpose: "workflow:run-7:step-2:header:authorization" }])

        const failed = yield* failureOf(run(step("Http", { url: target.url, headers: { "x-key": { secret_handle: "sec_unknown" } } }), context()))
        expect(failed.code).toBe("secret_unavailable")
        expect(failed.message).toBe("Http args.headers.x-key: secret handle sec_unknown not found")
        expect(target.seen).toHaveLength(1)
      })
    , { http: secrets.layer })
  })

  it.live("refuses a record's redaction marker instead of sending it", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const target = yield* recordingServer
        for (const args of [{ url: target.url, headers: { authorization: "[redacted]" } }, { url: `${target.url}/?token=[redacted]` }]) {
          const failed = yield* failureOf(run(step("Http", args), context()))
          expect(failed.code).toBe("invalid_action")
          expect(failed.message).toContain("secret_handle")
        }
        expect(target.seen).toEqual([])
      })
    ))

  it.live("sends a keyed step's idempotency_key as Idempotency-Key, the same on every attempt; a playbook key qualified by its run", () =>
    withExecutor((run) =>
      Effect.gen(function*() {
        const target = yield* recordingServer
        const keyed = step("Http", { method: "POST", url: target.url, body: {} }, { idempotency_key: "order-1" })
        yield* run(keyed, context({ run_id: "run-a", attempt: 1 }))
        yield* run(keyed, context({ run_id: "run-a", attempt: 2 }))
        const playbook = step("Http", { method: "POST", url: target.url, body: {} }, { idempotency_key: "playbook:pb:s1" })
        yield* run(playbook, context({ run_id: "run-b" }))
        yield* run(playbook, context({ run_id: "run-c" }))
        yield* run(step("Http", { method: "POST", url: target.url, headers: { "Idempotency-Key": "mine" } }, { idempotency_key: "k" }), context())
        yield* run(step("Http", { method: "POST", url: target.url }), context())
        expect(target.seen.map((h) => h["idempotency-key"]))
          .toEqual(["order-1", "order-1", "playbook:pb:s1:run-b", "playbook:pb:s1:run-c", "mine", undefined])
      })
    ))

  it.live("sends trace headers only to targets of traceTargets", () =>
    Effect.gen(function*() {
      const target = yield* recordingServer
      const port = new URL(target.url).port
      const call = (traceTargets: ReadonlyArray<string>) =>
        withExecutor((run) => run(step("Http", { url: `${target.url}/x` }), context()), { executor: { traceTargets } })
      yield* call([])
      yield* call(["https://api.example.com/*"])
      yield* call([`http://127.0.0.1:${port}/*`])
      expect(target.seen.map((h) => h.traceparent !== undefined)).toEqual([false, false, true])
      expect(target.seen.map((h) => h.b3 !== undefined)).toEqual([false, false, true])
    }).pipe(Effect.scoped))

  it.live("checks the addresses a name resolves to against the deny rules, and connects only to the checked address", () =>
    Effect.gen(function*() {
      const target = yield* recordingServer
      const port = new URL(target.url).port
      // A name no system resolver knows: reaching the target proves the connection used the checked address.
      const dns = Dns.layerStatic({ hosts: { "svc-target.test": ["127.0.0.1"] } })
      const allowed = yield* withExecutor((run) => run(step("Http", { url: `http://svc-target.test:${port}/ok` }), context()), { dns })
      expect(allowed.result).toMatchObject({ status: 200 })
      expect(target.seen[0]?.host).toBe(`svc-target.test:${port}`)

      const denying = httpStepContext({ deny: ["http://127.0.0.1:*"] }).layer
      const denied = yield* withExecutor((run) => failureOf(run(step("Http", { url: `http://svc-target.test:${port}/no` }), context())), {
        dns,
        http: denying
      })
      expect(denied.code).toBe("policy_denied")
      expect(denied.message).toBe(
        `GET http://svc-target.test:${port} denied: svc-target.test resolves to 127.0.0.1, which network_egress denies (http://127.0.0.1:*)`
      )
      // Through the system resolver (localhost) and IP literals in other spellings, too.
      for (const url of [`http://localhost:${port}/`, `http://[::ffff:127.0.0.1]:${port}/`, `http://[::ffff:7f00:1]:${port}/`]) {
        const failed = yield* withExecutor((run) => failureOf(run(step("Http", { url }), context())), { http: denying })
        expect(failed.code).toBe("policy_denied")
      }
      expect(target.seen).toHaveLength(1)
    }).pipe(Effect.scoped))
})
