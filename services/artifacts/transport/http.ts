/**
 * Artifact handlers (transport/httpApi.ts): one call to `Artifacts`. The
 * bytes go out as stored, with the artifact's `mime_type` (else
 * `application/octet-stream`), `Cache-Control: no-store` and
 * `X-Content-Type-Options: nosniff` (an artifact is never rendered as
 * something else than it says).
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
      Effect.map(artifacts.bytesForRun(params.runId, params.id), ({ artifact, bytes }) =>
        HttpServerResponse.uint8Array(bytes, {
          status: 200,
          contentType: artifact.mime_type ?? "application/octet-stream",
          headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" }
        }))
  })
}))
