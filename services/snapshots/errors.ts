/**
 * Snapshot errors (gateway-api.md "Snapshots"). Bad bundles and unknown
 * tables or columns are the shared 400 `invalid_request`; none of these
 * messages ever carries a stored value (a secret's ciphertext, a digest).
 *
 * @module
 */
import { Schema } from "effect"

export { InvalidRequest } from "../shared/errors.ts"

/** 403 `disabled`: `POST /snapshot/import` while `SVC_SNAPSHOT_IMPORT_ENABLED` is not `1`. */
export class SnapshotImportDisabled extends Schema.TaggedError<SnapshotImportDisabled>()(
  "SnapshotImportDisabled",
  { message: Schema.String },
  { httpApiStatus: 403, errorCode: "disabled" }
) {}

/**
 * 500 `import_refused` (the spec's status): a target table of the bundle
 * already holds rows, so nothing was imported. `message` names the tables.
 */
export class ImportRefused extends Schema.TaggedError<ImportRefused>()(
  "ImportRefused",
  { message: Schema.String },
  { httpApiStatus: 500, errorCode: "import_refused" }
) {}

/**
 * 500 `export_failed`: a stored value cannot be put in its portable form
 * (e.g. text in a JSON column that is not JSON). `message` names the table,
 * the column and the row's key, never the value.
 */
export class SnapshotExportFailed extends Schema.TaggedError<SnapshotExportFailed>()(
  "SnapshotExportFailed",
  { message: Schema.String },
  { httpApiStatus: 500, errorCode: "export_failed" }
) {}
