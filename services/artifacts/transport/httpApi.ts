/**
 * Run-scoped artifacts over HTTP (gateway-api.md "Artifacts"; reference
 * §6.9; docs/artifacts.md); device tokens need operator.read. An artifact is
 * served only through the run that produced it: the unscoped
 * `/artifacts/:id` routes always answer 400 `invalid_request` naming the
 * run-scoped route. `:id` is an artifact id (a UUID; else 400 "invalid
 * artifact id"); 403 `forbidden` when the artifact has no durable run
 * linkage or the run's policy snapshot denies artifacts, 403
 * `require_approval` when it requires approval, 404 for an unknown id,
 * another run's artifact or bytes deleted by retention.
 */
import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema } from "effect/http-api"
import { documented } from "../../../src/http/api/examples.ts"
import { Access, scope } from "../../../src/http/api/access.ts"
import { Authentication, RequestErrors } from "../../../src/http/api/security.ts"
import { REQUEST_ERRORS, wire } from "../../../src/http/api/errors.ts"
import { ArtifactApprovalRequired, NotFound } from "../errors.ts"
import { ArtifactMetadataResponse } from "../schema.ts"

const id = Schema.String.annotate({ description: "The artifact id (a UUID)." })
const runId = Schema.String.annotate({ description: "The run that produced the artifact." })
const errors = [...REQUEST_ERRORS, wire(NotFound), wire(ArtifactApprovalRequired)]

/** The bytes of an artifact, as stored (`Content-Type` its `mime_type`, else `application/octet-stream`). */
const ArtifactBytes = Schema.Uint8Array.pipe(HttpApiSchema.asUint8Array({ contentType: "application/octet-stream" }))

/** Shell lines setting `$RUN_ID` and `$ARTIFACT_ID` to the `http_trace` of the first step of the newest run that has one. */
const FIRST_TRACE = [
  "for R in $(curl -s \"$GW/workflow/runs?key=agent:default:main&limit=100\" -H \"authorization: Bearer $TOKEN\" | jq -r '.runs[].run_id'); do",
  "  A=$(curl -s \"$GW/workflow/runs/$R\" -H \"authorization: Bearer $TOKEN\" | jq -r '.steps[0].attempts[0].artifacts[0].artifact_id // empty')",
  "  if [ -n \"$A\" ]; then RUN_ID=$R; ARTIFACT_ID=$A; break; fi",
  "done"
].join("\n")

/** `GET /artifacts/:id`, `/artifacts/:id/metadata` (always 400) and the run-scoped `GET /runs/:runId/artifacts/:id[/metadata]`. */
export const ArtifactsApi = HttpApiGroup.make("artifacts")
  .add(
    HttpApiEndpoint.get("unscopedMetadata", "/artifacts/:id/metadata", {
      params: { id },
      error: errors
    }).annotateMerge(documented(
      "Always 400 `invalid_request`: artifacts are bound to the run that produced them; use " +
        "`GET /runs/:runId/artifacts/:id/metadata`.",
      {
        path: "/artifacts/00000000-0000-4000-8000-000000000000/metadata",
        status: 400,
        response: { error: "invalid_request", message: "artifact fetch APIs must be scope-bound; use GET /runs/:runId/artifacts/:id/metadata" }
      }
    )),
    HttpApiEndpoint.get("unscoped", "/artifacts/:id", {
      params: { id },
      error: errors
    }).annotateMerge(documented(
      "Always 400 `invalid_request`: artifacts are bound to the run that produced them; use `GET /runs/:runId/artifacts/:id`.",
      {
        path: "/artifacts/00000000-0000-4000-8000-000000000000",
        status: 400,
        response: { error: "invalid_request", message: "artifact fetch APIs must be scope-bound; use GET /runs/:runId/artifacts/:id" }
      }
    )),
    HttpApiEndpoint.get("metadata", "/runs/:runId/artifacts/:id/metadata", {
      params: { runId, id },
      success: ArtifactMetadataResponse,
      error: errors
    }).annotateMerge(documented(
      "The artifact's `ArtifactRef` and its execution `scope` (`workspace_id`, `agent_id`, `run_id`, `step_id`, " +
        "`attempt_id`, `sensitivity`, `policy_snapshot_id`). 403 without a durable run linkage or when the run's " +
        "policy snapshot denies artifacts (`require_approval` when it requires approval); 404 for another run's artifact. " +
        "Here: the `http_trace` an Http step of the setup run stored.",
      {
        setup: FIRST_TRACE,
        path: "/runs/$RUN_ID/artifacts/$ARTIFACT_ID/metadata",
        response: { artifact: { kind: "http_trace", mime_type: "application/json", labels: ["http"] }, scope: { agent_id: "default", sensitivity: "normal" } }
      }
    )),
    HttpApiEndpoint.get("bytes", "/runs/:runId/artifacts/:id", {
      params: { runId, id },
      success: ArtifactBytes,
      error: errors
    }).annotateMerge(documented(
      "The artifact's bytes, with its `mime_type` as `Content-Type` and `Cache-Control: no-store`; announced as " +
        "`artifact.fetched`. With the S3 store (`SVC_ARTIFACT_STORE=s3`) instead 302 with `Location:` a presigned GET " +
        "of the object that expires in 60 s. Same refusals as the metadata route. An `http_trace` is JSON: " +
        "`{request: {method, url}, response: {status, headers, body, body_truncated}}`.",
      {
        setup: FIRST_TRACE,
        path: "/runs/$RUN_ID/artifacts/$ARTIFACT_ID",
        text: "{\"request\":{\"method\":\"GET\",…"
      }
    ))
  )
  .annotate(Access, scope("operator.read"))
  .middleware(Authentication)
  .middleware(RequestErrors)
