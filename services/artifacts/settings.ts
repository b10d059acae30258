/**
 * Artifact store settings (issue 24 §4; layers/settings.ts; docs/artifacts.md
 * "Store"): where artifact bytes live, the filesystem under
 * `$SVC_HOME/artifacts` (default) or an S3-compatible bucket, and how to
 * reach the bucket. Only read when `SVC_ARTIFACT_STORE=s3`; the cross-field
 * rule "s3 needs a bucket" is in layers/config.ts `validateSettings`.
 */
import { type Redacted, Result } from "effect"
import { optionalTextValue, Setting } from "../../layers/settings.ts"

/** S3 bucket names (the common rules): 3..63 of lowercase letters, digits, dots and hyphens, starting and ending alphanumeric. */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/

/**
 * `SVC_ARTIFACT_STORE` (`fs`/`s3`), `SVC_S3_BUCKET`, `SVC_S3_ENDPOINT`,
 * `SVC_S3_REGION`, `SVC_S3_FORCE_PATH_STYLE` (`auto`/`true`/`false`),
 * `SVC_S3_ACCESS_KEY_ID`, `SVC_S3_SECRET_ACCESS_KEY`.
 */
export const ArtifactsSettings = Setting.group("artifacts", {
  artifactStore: Setting.choice({
    env: "SVC_ARTIFACT_STORE",
    flag: "artifact-store",
    values: ["fs", "s3"],
    default: "fs",
    summary: "Where artifact bytes live: fs ($SVC_HOME/artifacts) or s3 (SVC_S3_BUCKET) (SVC_ARTIFACT_STORE)",
    doc:
      "Where artifact bytes live: `fs` (under `$SVC_HOME/artifacts`) or `s3` (an S3-compatible bucket, `SVC_S3_*`; the run-scoped bytes route then answers 302 to a presigned GET valid 60 s)."
  }),
  s3Bucket: Setting.optionalText({
    env: "SVC_S3_BUCKET",
    flag: "s3-bucket",
    unset: "unset (required with SVC_ARTIFACT_STORE=s3)",
    summary: "Bucket of the s3 artifact store (SVC_S3_BUCKET)",
    doc: "The bucket of the `s3` artifact store (3..63 lowercase letters, digits, `.`, `-`); objects are `artifacts/<id>.bin`. Required with `SVC_ARTIFACT_STORE=s3`.",
    resolve: (raw) => {
      const bucket = optionalTextValue(raw)
      return bucket === undefined || BUCKET_NAME.test(bucket)
        ? Result.succeed(bucket)
        : Result.fail(
          "SVC_S3_BUCKET / --s3-bucket must be a bucket name: 3..63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit"
        )
    }
  }),
  s3Endpoint: Setting.optionalText({
    env: "SVC_S3_ENDPOINT",
    flag: "s3-endpoint",
    unset: "unset: AWS S3 of SVC_S3_REGION",
    summary: "Endpoint URL of an S3-compatible server, e.g. http://127.0.0.1:9000 (SVC_S3_ENDPOINT)",
    doc: "The URL of an S3-compatible server (MinIO, Ceph, …), `http(s)://host[:port]`; unset: AWS S3 in `SVC_S3_REGION`.",
    resolve: (raw) => {
      const endpoint = optionalTextValue(raw)
      if (endpoint === undefined) return Result.succeed(undefined)
      const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined
      return url !== undefined && (url.protocol === "http:" || url.protocol === "https:")
        ? Result.succeed(endpoint)
        : Result.fail("SVC_S3_ENDPOINT / --s3-endpoint must be an http:// or https:// URL (the S3-compatible server's base URL)")
    }
  }),
  s3Region: Setting.text({
    env: "SVC_S3_REGION",
    flag: "s3-region",
    default: "us-east-1",
    summary: "Region of the s3 artifact store (SVC_S3_REGION)",
    doc: "The region requests are signed for (`us-east-1` suits most S3-compatible servers).",
    resolve: (raw) =>
      /^[a-z0-9-]{1,64}$/.test(raw.trim())
        ? Result.succeed(raw.trim())
        : Result.fail("SVC_S3_REGION / --s3-region must be a region name like us-east-1 (lowercase letters, digits, hyphens)")
  }),
  s3ForcePathStyle: Setting.choice({
    env: "SVC_S3_FORCE_PATH_STYLE",
    flag: "s3-force-path-style",
    values: ["auto", "true", "false"],
    default: "auto",
    summary: "Path-style bucket URLs (<endpoint>/<bucket>/<key>): auto is true when SVC_S3_ENDPOINT is set (SVC_S3_FORCE_PATH_STYLE)",
    doc:
      "`true`: path-style URLs (`<endpoint>/<bucket>/<key>`, what most S3-compatible servers need); `false`: virtual-hosted (`<bucket>.<host>`); `auto`: `true` when `SVC_S3_ENDPOINT` is set."
  }),
  s3AccessKeyId: Setting.optionalText({
    env: "SVC_S3_ACCESS_KEY_ID",
    flag: "s3-access-key-id",
    unset: "unset: the AWS SDK's default credentials",
    summary: "Access key id of the s3 artifact store; with SVC_S3_SECRET_ACCESS_KEY (SVC_S3_ACCESS_KEY_ID)",
    doc:
      "The access key id of the `s3` store, with `SVC_S3_SECRET_ACCESS_KEY`. Neither set: the AWS SDK's default credential chain (`AWS_ACCESS_KEY_ID`, `~/.aws`, instance roles)."
  }),
  s3SecretAccessKey: Setting.secret({
    env: "SVC_S3_SECRET_ACCESS_KEY",
    flag: "s3-secret-access-key",
    unset: "unset: the AWS SDK's default credentials",
    summary: "Secret access key of the s3 artifact store; with SVC_S3_ACCESS_KEY_ID (SVC_S3_SECRET_ACCESS_KEY)",
    doc: "The secret access key of the `s3` store, with `SVC_S3_ACCESS_KEY_ID` (never logged)."
  })
})

/** The settings the S3 store reads (a subset of `GatewaySettings`). */
export interface S3StoreSettings {
  readonly s3Bucket: string | undefined
  readonly s3Endpoint: string | undefined
  readonly s3Region: string
  readonly s3ForcePathStyle: "auto" | "true" | "false"
  readonly s3AccessKeyId: string | undefined
  readonly s3SecretAccessKey: Redacted.Redacted<string> | undefined
}

/** Path-style addressing: `true`/`false` as given, `auto` when an endpoint is set. */
export const forcePathStyle = (settings: Pick<S3StoreSettings, "s3ForcePathStyle" | "s3Endpoint">): boolean =>
  settings.s3ForcePathStyle === "auto" ? settings.s3Endpoint !== undefined : settings.s3ForcePathStyle === "true"

declare module "../../layers/settings.ts" {
  /** Enters the artifacts subsystem's settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly artifacts: typeof ArtifactsSettings.settings
  }
}
