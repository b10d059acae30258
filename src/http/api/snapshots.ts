/**
 * Snapshots over HTTP (gateway-api.md "Snapshots"; docs/operations.md "Backup
 * and restore"): device tokens need operator.admin.
 *
 * `POST /snapshot/import` declares no payload schema on purpose: the handler
 * answers 403 `disabled` before it reads the body (unless
 * `SVC_SNAPSHOT_IMPORT_ENABLED=1`), then decodes `SnapshotImportRequest`
 * itself (services/snapshots/schema.ts).
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { ImportRefused, SnapshotExportFailed, SnapshotImportDisabled } from "../../../services/snapshots/errors.ts"
import { SnapshotBundle, SnapshotImportResponse } from "../../../services/snapshots/schema.ts"
import { Access, scope } from "./access.ts"
import { REQUEST_ERRORS, wire } from "./errors.ts"

/** `GET /snapshot/export?tables=a,b`, `POST /snapshot/import`. */
export const SnapshotsApi = HttpApiGroup.make("snapshots")
  .add(
    HttpApiEndpoint.get("export", "/snapshot/export", {
      query: {
        tables: Schema.optionalKey(Schema.String.annotate({
          description: "Comma-separated table names; default: every table of the snapshot set (docs/operations.md)."
        }))
      },
      success: SnapshotBundle,
      error: [...REQUEST_ERRORS, wire(SnapshotExportFailed)]
    }),
    HttpApiEndpoint.post("import", "/snapshot/import", {
      success: SnapshotImportResponse,
      error: [...REQUEST_ERRORS, wire(SnapshotImportDisabled), wire(ImportRefused)]
    }).annotateMerge(OpenApi.annotations({
      description: "JSON body `SnapshotImportRequest` `{confirm: \"IMPORT\", bundle: SnapshotBundle}`. " +
        "403 `disabled` unless SVC_SNAPSHOT_IMPORT_ENABLED=1 (checked before the body is read); " +
        "every target table must be empty, else 500 `import_refused`; all or nothing."
    }))
  )
  .annotate(Access, scope("operator.admin"))
