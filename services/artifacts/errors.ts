/**
 * Artifact errors: the gateway-wide 400 `invalid_request` (a malformed id,
 * the unscoped routes), 403 `forbidden` (no durable run linkage, the run's
 * policy snapshot denies artifacts), 404 `not_found` (unknown, another
 * run's, or bytes deleted by retention), and this subsystem's 403
 * `require_approval` (the run's policy snapshot says `artifacts.default:
 * require_approval`; the HTTP body is `{"error":"require_approval", message}`).
 *
 * @module
 */
import { Schema } from "effect"
export { Forbidden, InvalidRequest, NotFound } from "../shared/errors.ts"

/** 403 `require_approval`: the run's policy snapshot requires an approval before an artifact is served. */
export class ArtifactApprovalRequired extends Schema.TaggedError<ArtifactApprovalRequired>()(
  "ArtifactApprovalRequired",
  { message: Schema.String },
  { httpApiStatus: 403, errorCode: "require_approval" }
) {}
