/**
 * Canvas pages over HTTP (gateway-api.md "Canvas artifacts"; reference §6.8;
 * docs/canvas.md): device tokens need operator.write to publish and
 * operator.read to read. A malformed id (not a UUID) is 400
 * `invalid_request`, an unknown one 404 `not_found`.
 *
 * @module
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, OPERATOR } from "../../../src/http/api/access.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { NotFound } from "../errors.ts"
import { CanvasListQuery, CanvasListResponse, CanvasMeta, CanvasParams, CanvasPublished, CanvasPublishRequest } from "../schema.ts"

const errors = [...REQUEST_ERRORS, wire(NotFound)]

/** The page's bytes, `text/html` or `text/plain` (`; charset=utf-8`), under the canvas CSP. */
const CanvasContent = Schema.String.pipe(HttpApiSchema.asText({ contentType: "text/html" })).annotate({
  description: "the page as published, with Content-Type `text/html; charset=utf-8` or `text/plain; charset=utf-8`"
})

/** `POST /canvas/publish`, `GET /canvas`, `GET /canvas/:id`, `GET /canvas/:id/meta`. */
export const CanvasApi = HttpApiGroup.make("canvas")
  .add(
    HttpApiEndpoint.post("publish", "/canvas/publish", {
      payload: CanvasPublishRequest,
      success: CanvasPublished.pipe(HttpApiSchema.status(201)),
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Publishes a page: `title`, `content_type` (`text/html` or `text/plain`), `html_content` (the page, at most " +
        "`SVC_CANVAS_MAX_BYTES` UTF-8 bytes, 256 KiB by default: 413 above), optional `plan_id` and `metadata` (a " +
        "small JSON object). Any other field is a 400. Answers the page's `id` (a UUID).",
      {
        body: {
          plan_id: "plan-42",
          title: "Deploy summary",
          content_type: "text/html",
          html_content: "<h1>Deployed</h1><p style=\"color:green\">3 services updated</p>",
          metadata: { run: "nightly" }
        },
        response: { id: "…", created_at: "…" }
      }
    )),
    HttpApiEndpoint.get("list", "/canvas", {
      query: CanvasListQuery,
      success: CanvasListResponse,
      error: REQUEST_ERRORS
    }).annotateMerge(documented(
      "Published pages' metadata, newest first: `limit` 1..200 (default 50), `cursor` the previous answer's " +
        "`next_cursor` (present when more may remain).",
      {
        query: "limit=10",
        response: { pages: [{ title: "Deploy summary", content_type: "text/html", plan_id: "plan-42" }] }
      }
    )),
    HttpApiEndpoint.get("content", "/canvas/:id", {
      params: CanvasParams,
      success: CanvasContent,
      error: errors
    }).annotateMerge(documented(
      "The page as published, with `Content-Type: <content_type>; charset=utf-8`, `Content-Security-Policy: " +
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; font-src 'self'` (no script runs, nothing " +
        "loads from elsewhere), `X-Content-Type-Options: nosniff` and `Cache-Control: no-store`.",
      {
        setup: "CANVAS_ID=$(curl -s \"$GW/canvas?limit=1\" -H \"authorization: Bearer $TOKEN\" | jq -r '.pages[0].id')",
        path: "/canvas/$CANVAS_ID",
        text: "<h1>Deployed</h1>…"
      }
    )),
    HttpApiEndpoint.get("meta", "/canvas/:id/meta", {
      params: CanvasParams,
      success: CanvasMeta,
      error: errors
    }).annotateMerge(documented(
      "The page's metadata: `{id, plan_id, title, content_type, metadata, size_bytes, created_at}` (`plan_id` and " +
        "`metadata` are `null` when not given).",
      {
        path: "/canvas/$CANVAS_ID/meta",
        response: { plan_id: "plan-42", title: "Deploy summary", content_type: "text/html", metadata: { run: "nightly" } }
      }
    ))
  )
  .annotate(Access, OPERATOR)
  .middleware(Authentication)
  .middleware(RequestErrors)
