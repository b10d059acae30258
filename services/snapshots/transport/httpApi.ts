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
import { HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { ImportRefused, SnapshotExportFailed, SnapshotImportDisabled } from "../errors.ts"
import { SnapshotBundle, SnapshotImportResponse } from "../schema.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"

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
    }).annotateMerge(documented(
      "Exports every row of the stateful tables (or `?tables=a,b`) in one transaction, in a portable form that " +
        "imports into SQLite or PostgreSQL: the backup format. Secrets leave only as ciphertext, tokens only as " +
        "digests. docs/operations.md \"Backup and restore\".",
      {
        query: "tables=approvals",
        response: { format: "svc.snapshot.v2", gateway_version: "0.1.0", db_kind: "sqlite", tables: { approvals: { rows: [{ id: 1, kind: "spend" }] } } }
      }
    )),
    HttpApiEndpoint.post("import", "/snapshot/import", {
      success: SnapshotImportResponse,
      error: [...REQUEST_ERRORS, wire(SnapshotImportDisabled), wire(ImportRefused)]
    }).annotateMerge(documented(
      "Imports a snapshot bundle, JSON body `{confirm: \"IMPORT\", bundle: SnapshotBundle}`, all or nothing. " +
        "403 `disabled` unless `SVC_SNAPSHOT_IMPORT_ENABLED=1` (checked before the body is read); every table of the " +
        "bundle must be empty in this database, else 500 `import_refused`. Restart the gateway afterwards. Here: one " +
        "routing configuration revision, into the still empty `routing_configs`.",
      {
        body: {
          confirm: "IMPORT",
          bundle: {
            format: "svc.snapshot.v2",
            exported_at: "2026-01-05T09:00:00.000Z",
            gateway_version: "0.1.0",
            db_kind: "sqlite",
            tables: {
              routing_configs: {
                columns: [
                  "revision",
                  "config_json",
                  "created_at",
                  "created_by_json",
                  "reason",
                  "reverted_from_revision"
                ],
                rows: [
                  {
                    revision: 1,
                    config_json: { v: 1, messenger: { default_agent_id: "default" } },
                    created_at: "2026-01-05T09:00:00.000Z",
                    created_by_json: { kind: "http" },
                    reason: "restored from a backup",
                    reverted_from_revision: null
                  }
                ]
              }
            }
          }
        },
        response: { status: "ok", format: "svc.snapshot.v2", tables: ["routing_configs"], inserted_total: 1 }
      }
    ))
  )
  .annotate(Access, scope("operator.admin"))
  .middleware(Authentication)
  .middleware(RequestErrors)
