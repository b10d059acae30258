/**
 * Canvas pages (gateway-api.md "Canvas artifacts"; reference §6.8;
 * docs/canvas.md): an HTML or plain-text page published once (`POST
 * /canvas/publish`), served back as is under a restrictive
 * Content-Security-Policy (transport/http.ts), its metadata readable apart.
 * Each publish is an audited decision (`canvas.published` on
 * `gateway.canvas`, in the transaction of the insert: both or neither).
 * Storage failures are defects (500 `internal_error`).
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomUUID } from "node:crypto"
import { GatewayConfig } from "../../layers/config.ts"
import { transactionAtEdge } from "../../layers/storage/repositoryEdge.ts"
import { Decision } from "../domain-events/decisions.ts"
import { DomainEvents } from "../domain-events/DomainEvents.ts"
import { clampLimit, cursorCodec, pageOf } from "../shared/cursor.ts"
import { sha256Hex } from "../shared/sha256.ts"
import { isoTime } from "../shared/time.ts"
import { CanvasRepo } from "./CanvasRepo.ts"
import { CANVAS_CHAIN } from "./chains.ts"
import { InvalidRequest, NotFound, PayloadTooLarge } from "./errors.ts"
import { CANVAS_ID_PATTERN, type CanvasMeta, type CanvasPage, type CanvasPublished, type CanvasPublishRequest, MAX_CANVAS_LIST_LIMIT } from "./schema.ts"

/** Default `limit` of `GET /canvas`. */
export const DEFAULT_CANVAS_LIST_LIMIT = 50

const utf8 = new TextEncoder()
const isCanvasId = (u: unknown): u is string => typeof u === "string" && CANVAS_ID_PATTERN.test(u)
const cursors = cursorCodec(isCanvasId)

/** A page of the listing: metadata newest first, and the cursor of the next page when there may be one. */
export interface CanvasList {
  readonly pages: ReadonlyArray<CanvasMeta>
  readonly next_cursor?: string
}

/** The canvas service. */
export class Canvas extends Context.Service<Canvas, {
  /**
   * Stores a page and answers its `{id (uuid), created_at}`.
   * `PayloadTooLarge` when `html_content` is over `canvasMaxBytes` UTF-8
   * bytes (nothing is stored). The body's shape is checked by its schema.
   */
  readonly publish: (input: CanvasPublishRequest) => Effect.Effect<CanvasPublished, PayloadTooLarge>
  /** The page (metadata and content); `NotFound` when unknown. */
  readonly get: (id: string) => Effect.Effect<CanvasPage, NotFound>
  /** The page's metadata; `NotFound` when unknown. */
  readonly meta: (id: string) => Effect.Effect<CanvasMeta, NotFound>
  /**
   * Up to `limit` pages (1..200, default 50), newest first, after `cursor`
   * (from a previous answer); `InvalidRequest` "invalid cursor" for a cursor
   * this gateway did not issue.
   */
  readonly list: (options: { readonly limit?: number | undefined; readonly cursor?: string | undefined }) => Effect.Effect<CanvasList, InvalidRequest>
}>()("svc-gateway/canvas/Canvas") {
  /** Needs {@link CanvasRepo}, `GatewayConfig` (`canvasMaxBytes`), `DomainEvents` and the `SqlClient` (the publish transaction). */
  static readonly layerNoDeps: Layer.Layer<Canvas, never, CanvasRepo | GatewayConfig | DomainEvents | SqlClient.SqlClient> = Layer.effect(
    Canvas,
    Effect.gen(function*() {
      const repo = yield* CanvasRepo
      const settings = yield* GatewayConfig
      const domainEvents = yield* DomainEvents
      const sql = yield* SqlClient.SqlClient
      const notFound = (id: string) => new NotFound({ message: `canvas ${id} not found` })

      const publish = Effect.fn("Canvas.publish")(function*(input: CanvasPublishRequest) {
        const size_bytes = utf8.encode(input.html_content).length
        if (size_bytes > settings.canvasMaxBytes) {
          return yield* new PayloadTooLarge({
            message: `html_content is ${size_bytes} bytes, over the ${settings.canvasMaxBytes}-byte limit (SVC_CANVAS_MAX_BYTES)`
          })
        }
        const meta: CanvasMeta = {
          id: randomUUID(),
          plan_id: input.plan_id ?? null,
          title: input.title,
          content_type: input.content_type,
          metadata: input.metadata ?? null,
          size_bytes,
          created_at: isoTime(yield* Clock.currentTimeMillis)
        }
        // The page and its audit event (`gateway.canvas`, docs/audit.md) commit together.
        yield* transactionAtEdge(sql.withTransaction)(Effect.andThen(
          repo.insert({ meta, content: input.html_content }),
          domainEvents.publish(Decision, {
            chain: CANVAS_CHAIN,
            action: {
              type: "canvas.published",
              canvas_id: meta.id,
              plan_id: meta.plan_id,
              title: meta.title,
              content_type: meta.content_type,
              size_bytes,
              content_sha256: sha256Hex(input.html_content)
            }
          })
        ))
        yield* Effect.logInfo("canvas published").pipe(
          Effect.annotateLogs({ canvas_id: meta.id, content_type: meta.content_type, size_bytes })
        )
        return { id: meta.id, created_at: meta.created_at }
      })

      const get = Effect.fn("Canvas.get")(function*(id: string) {
        const page = yield* repo.get(id)
        if (page === undefined) return yield* notFound(id)
        return page
      })

      const meta = Effect.fn("Canvas.meta")(function*(id: string) {
        const found = yield* repo.meta(id)
        if (found === undefined) return yield* notFound(id)
        return found
      })

      const list = Effect.fn("Canvas.list")(function*(options: { readonly limit?: number | undefined; readonly cursor?: string | undefined }) {
        const limit = clampLimit(options.limit, DEFAULT_CANVAS_LIST_LIMIT, MAX_CANVAS_LIST_LIMIT)
        const after = options.cursor === undefined ? undefined : cursors.decode(options.cursor)
        if (options.cursor !== undefined && after === undefined) return yield* new InvalidRequest({ message: "invalid cursor" })
        const pages = yield* repo.list(limit + 1, after)
        const { rows: shown, next_cursor } = pageOf(cursors, pages, limit, (page) => [page.created_at, page.id])
        return next_cursor === undefined ? { pages: shown } : { pages: shown, next_cursor }
      })

      return Canvas.of({ publish, get, meta, list })
    })
  )

  /** Wired for the gateway: {@link Canvas.layerNoDeps} over its migrated repository. Needs `GatewayConfig`, a `SqlClient` and `DomainEvents`. */
  static readonly layer = Canvas.layerNoDeps.pipe(Layer.provide(CanvasRepo.layer))
}
