/**
 * Canvas page persistence (table `canvas_artifacts`;
 * services/canvas/migrations). Pages are written once and never changed.
 * Rows are decoded with {@link CanvasRow} (`SqlSchema`), the same on SQLite
 * and PostgreSQL; a row that does not decode is a defect.
 *
 * @module
 */
import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { TimestampColumn } from "../../layers/storage/columns.ts"
import { migrate } from "../../layers/storage/migrations.ts"
import { repositoryEdge } from "../../layers/storage/repositoryEdge.ts"
import { findRows } from "../../layers/storage/rows.ts"
import { canvasMigrations } from "./migrations/index.ts"
import { CanvasContentType, type CanvasMeta, type CanvasPage } from "./schema.ts"

/** A stored page: `metadata` as JSON text (NULL when none). */
export const CanvasRow = Schema.Struct({
  canvas_id: Schema.String,
  plan_id: Schema.NullOr(Schema.String),
  title: Schema.String,
  content_type: CanvasContentType,
  html_content: Schema.String,
  metadata: Schema.NullOr(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown))),
  size_bytes: Schema.Int,
  created_at: TimestampColumn
})
export type CanvasRow = typeof CanvasRow.Type

/** The metadata columns only (listings never read the content). */
const CanvasMetaRow = CanvasRow.mapFields(({ html_content: _, ...rest }) => rest)

/** The wire metadata of a row. */
const toMeta = (row: Omit<CanvasRow, "html_content">): CanvasMeta => ({
  id: row.canvas_id,
  plan_id: row.plan_id,
  title: row.title,
  content_type: row.content_type,
  metadata: row.metadata,
  size_bytes: row.size_bytes,
  created_at: row.created_at
})

/** A position in the newest-first listing: the last page of the previous batch. */
export interface CanvasListAfter {
  readonly createdAt: string
  readonly id: string
}

/** Repository of canvas pages over `SqlClient` (SQLite and PostgreSQL alike). */
export class CanvasRepo extends Context.Service<CanvasRepo, {
  /** Stores a new page. */
  readonly insert: (page: CanvasPage) => Effect.Effect<void>
  /** The page (metadata and content), or `undefined` when unknown. */
  readonly get: (id: string) => Effect.Effect<CanvasPage | undefined>
  /** The page's metadata, or `undefined` when unknown. */
  readonly meta: (id: string) => Effect.Effect<CanvasMeta | undefined>
  /** Up to `limit` pages' metadata, newest first (`created_at`, then id, descending), strictly after `after`. */
  readonly list: (limit: number, after: CanvasListAfter | undefined) => Effect.Effect<ReadonlyArray<CanvasMeta>>
}>()("svc-gateway/canvas/CanvasRepo") {
  /** The SQL implementation; needs a `SqlClient` and applies the canvas migrations first. */
  static readonly layer = Layer.effect(
    CanvasRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrate("canvas", canvasMigrations)

      const encodeRow = Schema.encodeEffect(CanvasRow)
      const metaRows = findRows(CanvasMetaRow)
      const META_COLUMNS = sql`canvas_id, plan_id, title, content_type, metadata, size_bytes, created_at`

      const findById = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: CanvasRow,
        execute: (id) => sql`SELECT * FROM canvas_artifacts WHERE canvas_id = ${id}`
      })

      const insert = (page: CanvasPage) =>
        Effect.flatMap(
          encodeRow({
            canvas_id: page.meta.id,
            plan_id: page.meta.plan_id,
            title: page.meta.title,
            content_type: page.meta.content_type,
            html_content: page.content,
            metadata: page.meta.metadata,
            size_bytes: page.meta.size_bytes,
            created_at: page.meta.created_at
          }),
          (row) => Effect.asVoid(sql`INSERT INTO canvas_artifacts ${sql.insert(row)}`)
        )

      const get = (id: string) =>
        Effect.map(findById(id), (o) => (o._tag === "Some" ? { meta: toMeta(o.value), content: o.value.html_content } : undefined))

      const meta = (id: string) =>
        Effect.map(
          metaRows(sql`SELECT ${META_COLUMNS} FROM canvas_artifacts WHERE canvas_id = ${id}`),
          (rows) => (rows[0] === undefined ? undefined : toMeta(rows[0]))
        )

      const list = (limit: number, after: CanvasListAfter | undefined) =>
        Effect.map(
          metaRows(
            after === undefined
              ? sql`SELECT ${META_COLUMNS} FROM canvas_artifacts ORDER BY created_at DESC, canvas_id DESC LIMIT ${limit}`
              : sql`SELECT ${META_COLUMNS} FROM canvas_artifacts
                  WHERE created_at < ${after.createdAt} OR (created_at = ${after.createdAt} AND canvas_id < ${after.id})
                  ORDER BY created_at DESC, canvas_id DESC LIMIT ${limit}`
          ),
          (rows) => rows.map(toMeta)
        )

      return CanvasRepo.of(repositoryEdge("CanvasRepo", { insert, get, meta, list }))
    })
  )
}
