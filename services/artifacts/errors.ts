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

/**
 * 413 `quota_exceeded`: storing the artifact would go over a limit of the
 * effective policy bundle (docs/artifacts.md "Quotas"): `artifacts.max_bytes`
 * (one artifact's size) or a rule of `artifacts.quota` (total bytes not
 * deleted of the artifacts it covers). The artifact is not stored.
 * `details`: the rule (`max_bytes`, `quota.default_max_bytes`,
 * `quota.by_label.<label>`, `quota.by_sensitivity.<s>`,
 * `quota.by_label_sensitivity.<label>.<s>`), its `limit_bytes`, the bytes it
 * already covers (`used_bytes`, 0 for `max_bytes`) and the artifact's `size_bytes`.
 */
export class ArtifactQuotaExceeded extends Schema.TaggedError<ArtifactQuotaExceeded>()(
  "ArtifactQuotaExceeded",
  {
    message: Schema.String,
    details: Schema.Struct({
      rule: Schema.String,
      limit_bytes: Schema.Number,
      used_bytes: Schema.Number,
      size_bytes: Schema.Number
    })
  },
  { httpApiStatus: 413, errorCode: "quota_exceeded" }
) {}
