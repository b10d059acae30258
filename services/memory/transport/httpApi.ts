/**
 * Memory exports over HTTP (gateway-api.md "Memory exports"; issue 24 §1;
 * docs/memory.md "Exports"): `GET /memory/exports/:id` downloads an export
 * `memory.export` wrote. Device tokens need operator.read. 400
 * `invalid_request` for an id that is not an artifact id (a UUID); 404
 * `not_found` for an unknown artifact or one that is not a memory export
 * (labels `memory`, `memory_v1`, `export`).
 *
 * @module
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { Access, scope } from "../../../src/http/api/access.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { documented } from "../../../src/http/api/examples.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { NotFound } from "../../shared/errors.ts"

/** The export document (docs/memory.md "Exports"), as an attachment. */
const ExportBytes = Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "application/json" })).annotate({
  description: "the export's JSON `{v, exported_at, filter, include_tombstones, items, tombstones?}`, with " +
    "`Content-Disposition: attachment; filename=\"svc-memory-export-<id>.json\"` and `Cache-Control: no-store`"
})

/** `GET /memory/exports/:id`. */
export const MemoryExportsApi = HttpApiGroup.make("memoryExports")
  .add(
    HttpApiEndpoint.get("download", "/memory/exports/:id", {
      params: { id: Schema.String.annotate({ description: "The export's artifact id (`memory.export`'s `artifact_id`)." }) },
      success: ExportBytes,
      error: [...REQUEST_ERRORS, wire(NotFound)]
    }).annotateMerge(documented(
      "Downloads a memory export written by the WebSocket request `memory.export` (which answers its `artifact_id`): " +
        "the JSON `{v, exported_at, filter, include_tombstones, items, tombstones?}` as an attachment " +
        "(`svc-memory-export-<id>.json`, `Cache-Control: no-store`). 400 for an id that is not an artifact id, 404 " +
        "for an unknown one or an artifact that is not a memory export. Here: an id no export has.",
      {
        path: "/memory/exports/00000000-0000-4000-8000-000000000000",
        status: 404,
        response: { error: "not_found", message: "memory export not found" }
      }
    ))
  )
  .annotate(Access, scope("operator.read"))
  .middleware(Authentication)
  .middleware(RequestErrors)
