/**
 * Where artifact bytes live (reference §6.9; docs/artifacts.md "Stores"):
 * one service, keyed by artifact id, whatever the backend. The filesystem
 * store ({@link ArtifactStore.layerFs}, the default) keeps each artifact at
 * `<dir>/<first two hex digits of the id>/<id>.bin`, written whole or not at
 * all (a temporary file renamed into place, mode 0600; services/shared/privateFile.ts).
 * The S3-compatible store (s3Store.ts: objects `artifacts/<id>.bin`,
 * presigned GETs) is chosen by `SVC_ARTIFACT_STORE=s3` ({@link ArtifactStore.layer});
 * the AWS SDK is loaded only then.
 *
 * Failures of the store (disk full, permissions) are defects: the caller did
 * nothing wrong.
 *
 * @module
 */
import { Context, Effect, Layer } from "effect"
import { readFile, unlink } from "node:fs/promises"
import { join } from "node:path"
import { GatewayConfig } from "../../layers/config.ts"
import { writePrivateFile } from "../shared/privateFile.ts"
import { makeS3Store, type S3StoreOptions } from "./s3Store.ts"

/** The bytes of artifacts, by id. */
export class ArtifactStore extends Context.Service<ArtifactStore, {
  /** Stores `bytes` under `artifact_id` (replacing any previous bytes). */
  readonly put: (artifact_id: string, bytes: Uint8Array) => Effect.Effect<void>
  /** The bytes of `artifact_id`, or `undefined` when none are stored (never stored, or deleted). */
  readonly get: (artifact_id: string) => Effect.Effect<Uint8Array | undefined>
  /** Deletes the bytes of `artifact_id`; nothing when there are none. */
  readonly remove: (artifact_id: string) => Effect.Effect<void>
  /**
   * A URL that GETs the bytes of `artifact_id` without credentials for
   * `ttlSeconds` from now (the `Clock`'s time), answering them with
   * `content_type` when given; `undefined` when the store cannot sign URLs
   * (the filesystem store), so the caller serves the bytes itself.
   */
  readonly presignGet: (
    artifact_id: string,
    ttlSeconds: number,
    options?: { readonly content_type?: string | undefined }
  ) => Effect.Effect<string | undefined>
}>()("svc-gateway/artifacts/ArtifactStore") {
  /** The filesystem store under `dir` (created on the first write, mode 0700). */
  static readonly layerFs = (dir: string): Layer.Layer<ArtifactStore> => Layer.succeed(ArtifactStore, makeFsStore(dir))

  /** The S3 store of `options` (s3Store.ts; loads the AWS SDK; the client is closed with the layer). */
  static readonly layerS3 = (options: S3StoreOptions): Layer.Layer<ArtifactStore> => Layer.effect(ArtifactStore, makeS3Store(options))

  /**
   * The store the settings choose (`SVC_ARTIFACT_STORE`): the filesystem
   * store under `$SVC_HOME/artifacts` (`fs`, the default) or the S3 store of
   * the `SVC_S3_*` settings (`s3`; settings validation guarantees a bucket).
   */
  static readonly layer: Layer.Layer<ArtifactStore, never, GatewayConfig> = Layer.effect(
    ArtifactStore,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      if (settings.artifactStore === "fs") return makeFsStore(artifactsDirectory(settings.home))
      const bucket = settings.s3Bucket
      if (bucket === undefined) return yield* Effect.die(new Error("SVC_ARTIFACT_STORE=s3 needs SVC_S3_BUCKET"))
      return yield* makeS3Store({ ...settings, s3Bucket: bucket })
    })
  )
}

/** `$SVC_HOME/artifacts`. */
export const artifactsDirectory = (home: string): string => join(home, "artifacts")

/** Where the filesystem store keeps `artifact_id` under `dir`. */
export const artifactPath = (dir: string, artifact_id: string): string =>
  join(dir, artifact_id.slice(0, 2).toLowerCase(), `${artifact_id.toLowerCase()}.bin`)

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT"

/** The filesystem {@link ArtifactStore} under `dir`. */
export const makeFsStore = (dir: string): ArtifactStore["Service"] =>
  ArtifactStore.of({
    put: Effect.fn("ArtifactStore.put")(function*(artifact_id: string, bytes: Uint8Array) {
      yield* Effect.promise(() => writePrivateFile(artifactPath(dir, artifact_id), bytes, "replace"))
    }),
    get: Effect.fn("ArtifactStore.get")(function*(artifact_id: string) {
      return yield* Effect.tryPromise({
        try: async () => new Uint8Array(await readFile(artifactPath(dir, artifact_id))),
        catch: (error) => error
      }).pipe(Effect.catch((error) => (isMissing(error) ? Effect.succeed(undefined) : Effect.die(error))))
    }),
    remove: Effect.fn("ArtifactStore.remove")(function*(artifact_id: string) {
      yield* Effect.tryPromise({ try: () => unlink(artifactPath(dir, artifact_id)), catch: (error) => error }).pipe(
        Effect.catch((error) => (isMissing(error) ? Effect.void : Effect.die(error)))
      )
    }),
    // The filesystem store cannot sign URLs: the gateway serves its bytes (a plain value, no span).
    presignGet: () => Effect.succeed(undefined)
  })
