/**
 * Wire schemas of canvas pages (gateway-api.md "Canvas artifacts"; reference
 * §6.8; docs/canvas.md): an HTML or plain-text page an agent or operator
 * publishes, served back with a restrictive Content-Security-Policy.
 *
 * The publish body is strict ({@link StrictStruct}): an unknown key is a 400
 * naming it. The content's size cap is a setting (`canvasMaxBytes`, checked
 * by the service: 413 above it).
 *
 * @module
 */
import { Schema } from "effect"
import { bounded, SMALL_JSON } from "../shared/json.ts"
import { intBetween, nonEmptyText, StrictStruct, UUID_PATTERN } from "../shared/schemas.ts"

/** Longest `title`, in characters. */
export const MAX_TITLE_LENGTH = 512
/** Longest `plan_id`, in characters. */
export const MAX_PLAN_ID_LENGTH = 256

/** The text of a UUID (a pattern, not the `uuid` format, which strict JSON Schema validators do not know). */
export const CANVAS_ID_PATTERN = UUID_PATTERN

/** A canvas page's id: a UUID (any other text is a 400 `invalid_request`). */
export const CanvasId = Schema.String.check(Schema.isPattern(CANVAS_ID_PATTERN, { expected: "a canvas id (a UUID)" }))

/** The two content types a page may have. */
export const CanvasContentType = Schema.Literals(["text/html", "text/plain"])
export type CanvasContentType = typeof CanvasContentType.Type

/** `metadata`: any JSON object, small (depth ≤ 8, ≤ 8 KiB of JSON, ≤ 256 keys and items). */
export const CanvasMetadata = bounded(
  Schema.Record(Schema.String, Schema.Unknown).annotate({ expected: "a JSON object" }),
  SMALL_JSON
)

/**
 * `POST /canvas/publish`: `{plan_id?, title, content_type, html_content,
 * metadata?}`; `html_content` holds the page whatever its type (it may be
 * empty; at most `canvasMaxBytes` UTF-8 bytes).
 */
export const CanvasPublishRequest = StrictStruct({
  plan_id: Schema.optionalKey(nonEmptyText(MAX_PLAN_ID_LENGTH)),
  title: nonEmptyText(MAX_TITLE_LENGTH),
  content_type: CanvasContentType,
  html_content: Schema.String,
  metadata: Schema.optionalKey(CanvasMetadata)
}).annotate({ identifier: "CanvasPublishRequest" })
export type CanvasPublishRequest = typeof CanvasPublishRequest.Type

/** 201 answer of `POST /canvas/publish`. */
export const CanvasPublished = Schema.Struct({
  id: Schema.String,
  created_at: Schema.String
}).annotate({ identifier: "CanvasPublished" })
export type CanvasPublished = typeof CanvasPublished.Type

/** `GET /canvas/:id/meta` (and each entry of `GET /canvas`): the page without its content; `plan_id` and `metadata` are `null` when not given. */
export const CanvasMeta = Schema.Struct({
  id: Schema.String,
  plan_id: Schema.NullOr(Schema.String),
  title: Schema.String,
  content_type: CanvasContentType,
  metadata: Schema.NullOr(Schema.Record(Schema.String, Schema.Unknown)),
  /** UTF-8 size of the content, in bytes. */
  size_bytes: Schema.Int,
  created_at: Schema.String
}).annotate({ identifier: "CanvasMeta" })
export type CanvasMeta = typeof CanvasMeta.Type

/** A stored page: its metadata and content. */
export interface CanvasPage {
  readonly meta: CanvasMeta
  readonly content: string
}

/** Path parameters of `GET /canvas/:id` and `/canvas/:id/meta`. */
export const CanvasParams = { id: CanvasId }

/** Largest `limit` of `GET /canvas`. */
export const MAX_CANVAS_LIST_LIMIT = 200

/** `GET /canvas` query: `limit` 1..200 (default 50), `cursor` the `next_cursor` of the previous page. */
export const CanvasListQuery = Schema.Struct({
  limit: Schema.optionalKey(intBetween(1, MAX_CANVAS_LIST_LIMIT)),
  cursor: Schema.optionalKey(nonEmptyText(512))
})
export type CanvasListQuery = typeof CanvasListQuery.Type

/** `GET /canvas` 200 body: pages' metadata newest first; `next_cursor` when more may remain. */
export const CanvasListResponse = Schema.Struct({
  pages: Schema.Array(CanvasMeta),
  next_cursor: Schema.optionalKey(Schema.String)
}).annotate({ identifier: "CanvasListResponse" })
