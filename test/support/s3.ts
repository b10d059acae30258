/**
 * A real S3-protocol server for tests (`s3rver`, its files in a temporary
 * directory) on 127.0.0.1 with an ephemeral port, and one bucket created
 * through the AWS SDK (`CreateBucketCommand`). s3rver's only credentials are
 * `S3RVER` / `S3RVER`; it checks signatures and presigned URLs' expiry.
 */
import { Redacted } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import S3rver from "s3rver"
import type { S3StoreOptions } from "../../services/artifacts/s3Store.ts"

/** A running s3rver with one bucket. */
export interface TestS3 {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string
  readonly bucket: string
  /** The S3 store's options for this server and bucket. */
  readonly options: S3StoreOptions
  /** The gateway settings selecting this server (`SVC_ARTIFACT_STORE=s3`, `SVC_S3_*`). */
  readonly settings: {
    readonly artifactStore: "s3"
    readonly s3Bucket: string
    readonly s3Endpoint: string
    readonly s3AccessKeyId: string
    readonly s3SecretAccessKey: Redacted.Redacted<string>
  }
  readonly close: () => Promise<void>
}

/** Starts s3rver and creates `bucket` (at least 3 characters). */
export const startS3 = async (bucket = "svc-artifacts"): Promise<TestS3> => {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true"
  const directory = mkdtempSync(join(tmpdir(), "svc-s3rver-"))
  const server = new S3rver({ port: 0, address: "127.0.0.1", silent: true, directory })
  const { port } = await server.run()
  const endpoint = `http://127.0.0.1:${port}`
  const { S3Client, CreateBucketCommand } = await import("@aws-sdk/client-s3")
  const client = new S3Client({
    region: "us-east-1",
    endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }
  })
  await client.send(new CreateBucketCommand({ Bucket: bucket }))
  client.destroy()
  const secret = Redacted.make("S3RVER")
  return {
    endpoint,
    bucket,
    options: {
      s3Bucket: bucket,
      s3Endpoint: endpoint,
      s3Region: "us-east-1",
      s3ForcePathStyle: "auto",
      s3AccessKeyId: "S3RVER",
      s3SecretAccessKey: secret
    },
    settings: { artifactStore: "s3", s3Bucket: bucket, s3Endpoint: endpoint, s3AccessKeyId: "S3RVER", s3SecretAccessKey: secret },
    close: async () => {
      await server.close()
      rmSync(directory, { recursive: true, force: true })
    }
  }
}
