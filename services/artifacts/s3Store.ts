/**
 * The S3-compatible {@link ArtifactStore} (issue 24 §4; docs/artifacts.md
 * "Store"): each artifact is the object `artifacts/<id>.bin` of one bucket,
 * written whole by `PutObject`; `presignGet` answers a presigned `GetObject`
 * URL signed at the `Clock`'s time (so tests control its expiry), which the
 * run-scoped bytes route answers as a 302.
 *
 * The AWS SDK (`@aws-sdk/client-s3`, `@aws-sdk/s3-request-presigner`) is
 * loaded with a dynamic `import()` by {@link makeS3Store} only, so a gateway
 * on the filesystem store (and Deno, and start-up) never loads it. Before
 * loading it, the SDK's own switch for its Node-version support notice
 * (`AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED`) is set for this
 * process unless the environment already says otherwise.
 *
 * Failures of the bucket (unreachable, access denied) are defects, as for
 * the filesystem store: the caller did nothing wrong.
 *
 * @module
 */
import { Clock, Effect, Redacted } from "effect"
import type { ArtifactStore } from "./ArtifactStore.ts"
import { forcePathStyle, type S3StoreSettings } from "./settings.ts"

/** The key of `artifact_id`'s object: `artifacts/<id>.bin` (lowercase id). */
export const s3Key = (artifact_id: string): string => `artifacts/${artifact_id.toLowerCase()}.bin`

/** What {@link makeS3Store} needs: the bucket and how to reach it (the settings `SVC_S3_*`). */
export interface S3StoreOptions extends S3StoreSettings {
  readonly s3Bucket: string
}

/** The SDK's switch for its "newer Node required" notice (read by `@aws-sdk/core` when a client is built). */
const NODE_VERSION_WARNING_SWITCH = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"

const isMissing = (error: unknown): boolean => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } } | undefined
  return e?.name === "NoSuchKey" || e?.name === "NotFound" || e?.$metadata?.httpStatusCode === 404
}

/**
 * The S3 store of `options`: loads the AWS SDK, builds one `S3Client`
 * (credentials from `s3AccessKeyId`/`s3SecretAccessKey` when both are set,
 * else the SDK's default chain) and answers the store. Dies if the SDK
 * cannot be loaded.
 */
export const makeS3Store = Effect.fnUntraced(function*(options: S3StoreOptions) {
  if (process.env[NODE_VERSION_WARNING_SWITCH] === undefined) process.env[NODE_VERSION_WARNING_SWITCH] = "true"
  const [s3, presigner] = yield* Effect.promise(() =>
    Promise.all([import("@aws-sdk/client-s3"), import("@aws-sdk/s3-request-presigner")])
  )
  const client = new s3.S3Client({
    region: options.s3Region,
    forcePathStyle: forcePathStyle(options),
    ...(options.s3Endpoint !== undefined ? { endpoint: options.s3Endpoint } : {}),
    ...(options.s3AccessKeyId !== undefined && options.s3SecretAccessKey !== undefined
      ? { credentials: { accessKeyId: options.s3AccessKeyId, secretAccessKey: Redacted.value(options.s3SecretAccessKey) } }
      : {})
  })
  const Bucket = options.s3Bucket
  yield* Effect.addFinalizer(() => Effect.sync(() => client.destroy()))

  const store: ArtifactStore["Service"] = {
    put: Effect.fn("ArtifactStore.put")(function*(artifact_id: string, bytes: Uint8Array) {
      yield* Effect.promise(() =>
        client.send(new s3.PutObjectCommand({ Bucket, Key: s3Key(artifact_id), Body: bytes, ContentLength: bytes.byteLength }))
      )
    }),
    get: Effect.fn("ArtifactStore.get")(function*(artifact_id: string) {
      return yield* Effect.tryPromise({
        try: async () => {
          const answer = await client.send(new s3.GetObjectCommand({ Bucket, Key: s3Key(artifact_id) }))
          return answer.Body === undefined ? new Uint8Array() : await answer.Body.transformToByteArray()
        },
        catch: (error) => error
      }).pipe(Effect.catch((error) => (isMissing(error) ? Effect.succeed(undefined) : Effect.die(error))))
    }),
    remove: Effect.fn("ArtifactStore.remove")(function*(artifact_id: string) {
      // DeleteObject succeeds whether or not the object exists.
      yield* Effect.promise(() => client.send(new s3.DeleteObjectCommand({ Bucket, Key: s3Key(artifact_id) })))
    }),
    presignGet: Effect.fn("ArtifactStore.presignGet")(function*(artifact_id: string, ttlSeconds: number, options?: { readonly content_type?: string | undefined }) {
      const signingDate = new Date(yield* Clock.currentTimeMillis)
      return yield* Effect.promise(() =>
        presigner.getSignedUrl(
          client,
          new s3.GetObjectCommand({
            Bucket,
            Key: s3Key(artifact_id),
            ResponseCacheControl: "no-store",
            ...(options?.content_type !== undefined ? { ResponseContentType: options.content_type } : {})
          }),
          { expiresIn: ttlSeconds, signingDate }
        )
      )
    })
  }
  return store
})
