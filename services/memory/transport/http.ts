/**
 * Memory export handlers (transport/httpApi.ts): one call to `MemoryExports`;
 * the bytes go out as an attachment that no cache keeps.
 *
 * @module
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { apiOf, group } from "../../../src/http/serve.ts"
import { MemoryExports } from "../MemoryExports.ts"
import { MemoryExportsApi } from "./httpApi.ts"

/** Memory export handlers; need {@link MemoryExports}. */
export const MemoryExportsHttp = group(apiOf(MemoryExportsApi), "memoryExports", (handlers) => Effect.gen(function*() {
  const exports = yield* MemoryExports
  return handlers.handleAll({
    download: ({ params }) =>
      Effect.map(exports.download(params.id), ({ bytes, filename }) =>
        HttpServerResponse.uint8Array(bytes, {
          status: 200,
          contentType: "application/json",
          headers: {
            "content-disposition": `attachment; filename="${filename}"`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff"
          }
        }))
  })
}))
