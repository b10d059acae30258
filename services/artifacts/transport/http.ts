/**
 * Artifact handlers (transport/httpApi.ts): one call to `Artifacts`. The
 * bytes go out as stored, with the artifact's `mime_type` (else
 * `application/octet-stream`), `Cache-Control: no-store` and
 * `X-Content-Type-Options: nosniff` (an artifact is never rendered as
 * something else than it says). With the S3 store the bytes route answers
 * 302 to a presigned GET (60 s), `Cache-Control: no-store`.
 */
import { Effect } from "effect"
import { HttpServerResponse } from "effect/http"
import { apiOf, group } from "../../../src/http/serve.ts"
import { Artifacts } from "../Artifacts.ts"
import { ArtifactsApi } from "./httpApi.ts"

/** Artifact handlers; need {@link Artifacts}. */
export const ArtifactsHttp = group(apiOf(ArtifactsApi), "artifacts", (handlers) => Effect.gen(function*() {
  const artifacts = yield* Artifacts
  return handlers.handleAll({
    unscopedMetadata: () => artifacts.unscoped(true),
    unscoped: () => artifacts.unscoped(false),
    metadata: ({ params }) => artifacts.metadataForRun(params.runId, params.id),
    bytes: ({ params }) =>
      Effect.map(artifacts.bytesForRun(params.runId, params.id), (served) =>
        "location" in served
          ? HttpServerResponse.empty({ status: 302, headers: { location: served.location, "cache-control": "no-store" } })
          : HttpServerResponse.uint8Array(served.bytes, {
            status: 200,
            contentType: served.artifact.mime_type ?? "application/octet-stream",
            headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" }
          }))
  })
}))
