/**
 * Wire schemas of snapshots (gateway-api.md "Snapshots", "Versioning";
 * docs/operations.md "Backup and restore").
 *
 * A bundle is `{format: "svc.snapshot.v2", exported_at, gateway_version,
 * db_kind, tables: {<name>: {columns, rows}}}`; each row is an object
 * `{<column>: value}` with values in their portable form
 * (layers/storage/columns.ts `ColumnKind`).
 *
 * @module
 */
import { Schema } from "effect"

/** The bundle format this gateway writes and reads. */
export const SNAPSHOT_FORMAT = "svc.snapshot.v2"

/** The word `POST /snapshot/import` and `svc-gateway snapshot import --confirm` require. */
export const IMPORT_CONFIRMATION = "IMPORT"

/** One table of a bundle: its column names and its rows, in primary-key order. */
export const SnapshotTableData = Schema.Struct({
  columns: Schema.Array(Schema.String),
  rows: Schema.Array(Schema.Record(Schema.String, Schema.Unknown))
}).annotate({ identifier: "SnapshotTableData" })
export type SnapshotTableData = typeof SnapshotTableData.Type

/** `GET /snapshot/export`'s answer. `exported_at` is ISO-8601 UTC; `db_kind` the database it was read from. */
export const SnapshotBundle = Schema.Struct({
  format: Schema.Literal(SNAPSHOT_FORMAT),
  exported_at: Schema.String,
  gateway_version: Schema.String,
  db_kind: Schema.Literals(["sqlite", "postgres"]),
  tables: Schema.Record(Schema.String, SnapshotTableData)
}).annotate({ identifier: "SnapshotBundle" })
export type SnapshotBundle = typeof SnapshotBundle.Type

/**
 * What an import reads: only `format` and `tables` are needed (the other
 * fields are informative). The format, table names, columns and values are
 * checked by the service, with messages naming them.
 */
export const SnapshotBundleInput = Schema.Struct({
  format: Schema.String,
  exported_at: Schema.optionalKey(Schema.String),
  gateway_version: Schema.optionalKey(Schema.String),
  db_kind: Schema.optionalKey(Schema.String),
  tables: Schema.Record(Schema.String, Schema.Struct({ columns: Schema.Array(Schema.String), rows: Schema.Array(Schema.Unknown) }))
}).annotate({ identifier: "SnapshotBundleInput" })
export type SnapshotBundleInput = typeof SnapshotBundleInput.Type

/** `POST /snapshot/import`'s body: `confirm` must be `"IMPORT"`. */
export const SnapshotImportRequest = Schema.Struct({
  confirm: Schema.String,
  bundle: SnapshotBundleInput
}).annotate({ identifier: "SnapshotImportRequest" })
export type SnapshotImportRequest = typeof SnapshotImportRequest.Type

/** `POST /snapshot/import`'s answer: the tables in import order and the rows inserted into each. */
export const SnapshotImportResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  imported_at: Schema.String,
  format: Schema.Literal(SNAPSHOT_FORMAT),
  tables: Schema.Array(Schema.String),
  inserted_total: Schema.Number,
  inserted_by_table: Schema.Record(Schema.String, Schema.Number)
}).annotate({ identifier: "SnapshotImportResponse" })
export type SnapshotImportResponse = typeof SnapshotImportResponse.Type
