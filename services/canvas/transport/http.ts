/**
 * Canvas handlers (transport/httpApi.ts): decode (done by the declaration),
 * one call to `Canvas`. `GET /canvas/:id` answers the stored text as is, with
 * the canvas headers ({@link CANVAS_HEADERS}): its own Content-Type, a CSP
 * under which no script runs and nothing loads from another origin, nosniff
 * and no-store.
 *
 * @module
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { apiOf, group } from "../../../src/http/serve.ts"
import { Canvas } from "../Canvas.ts"
import { CanvasApi } from "./httpApi.ts"

/** The Content-Security-Policy of every served page (reference §6.8). */
export const CANVAS_CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; font-src 'self'"

/** Headers of `GET /canvas/:id` beside its Content-Type. */
export const CANVAS_HEADERS = {
  "content-security-policy": CANVAS_CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "cache-control": "no-store"
} as const

/** Canvas handlers; need {@link Canvas}. */
export const CanvasHttp = group(apiOf(CanvasApi), "canvas", (handlers) => Effect.gen(function*() {
  const canvas = yield* Canvas
  return handlers.handleAll({
    publish: ({ payload }) => canvas.publish(payload),
    list: ({ query }) => canvas.list(query),
    content: ({ params }) =>
      Effect.map(canvas.get(params.id), (page) =>
        HttpServerResponse.text(page.content, {
          status: 200,
          contentType: `${page.meta.content_type}; charset=utf-8`,
          headers: CANVAS_HEADERS
        })),
    meta: ({ params }) => canvas.meta(params.id)
  })
}))
