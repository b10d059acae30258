/**
 * The S3 artifact store against a real S3-protocol server (s3rver, started
 * here; never a mocked client): put/get/remove round trip, a missing object
 * is `undefined`, a presigned GET (signed at the TestClock's time) gives the
 * bytes with the asked content type, and one signed two minutes ago with the
 * 60 s TTL has expired (s3rver answers 403). The filesystem store signs no URL.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import { PRESIGNED_GET_TTL_SECONDS } from "../../../services/artifacts/Artifacts.ts"
import { ArtifactStore } from "../../../services/artifacts/ArtifactStore.ts"
import { s3Key } from "../../../services/artifacts/s3Store.ts"
import { startS3, type TestS3 } from "../../support/s3.ts"

let s3: TestS3
beforeAll(async () => {
  s3 = await startS3("svc-artifacts-store")
})
afterAll(async () => {
  await s3?.close()
})

const ID = "0f0e0d0c-0b0a-4908-8706-050403020100"

describe("the S3 artifact store (s3rver)", () => {
  it.effect("put, get and remove round trip; a missing object is undefined", () =>
    Effect.gen(function*() {
      const store = yield* ArtifactStore
      const bytes = new TextEncoder().encode("hello, bucket")
      expect(yield* store.get(ID)).toBeUndefined()
      yield* store.put(ID, bytes)
      expect(yield* store.get(ID)).toEqual(bytes)
      // Replacing keeps one object.
      yield* store.put(ID, new Uint8Array([1, 2, 3]))
      expect(yield* store.get(ID)).toEqual(new Uint8Array([1, 2, 3]))
      yield* store.remove(ID)
      expect(yield* store.get(ID)).toBeUndefined()
      // Removing nothing is fine.
      yield* store.remove(ID)
      expect(s3Key(ID.toUpperCase())).toBe(`artifacts/${ID}.bin`)
    }).pipe(Effect.provide(Layer.fresh(ArtifactStore.layerS3(s3.options)))))

  it.effect("a presigned GET gives the bytes; one signed 2 minutes ago (60 s TTL) has expired: 403", () =>
    Effect.gen(function*() {
      const store = yield* ArtifactStore
      const bytes = new TextEncoder().encode("{\"ok\":true}")
      yield* store.put(ID, bytes)

      yield* TestClock.setTime(Date.now())
      const url = yield* store.presignGet(ID, PRESIGNED_GET_TTL_SECONDS, { content_type: "application/json" })
      expect(url).toMatch(new RegExp(`^${s3.endpoint}/svc-artifacts-store/artifacts/${ID}\\.bin\\?`))
      expect(url).toContain("X-Amz-Expires=60")
      const fresh = yield* Effect.promise(() => fetch(url!))
      expect(fresh.status).toBe(200)
      expect(fresh.headers.get("content-type")).toBe("application/json")
      expect(fresh.headers.get("cache-control")).toBe("no-store")
      expect(new Uint8Array(yield* Effect.promise(() => fresh.arrayBuffer()))).toEqual(bytes)

      yield* TestClock.setTime(Date.now() - 120_000)
      const stale = yield* store.presignGet(ID, PRESIGNED_GET_TTL_SECONDS)
      const expired = yield* Effect.promise(() => fetch(stale!))
      expect(expired.status).toBe(403)
      expect(yield* Effect.promise(() => expired.text())).toContain("expired")
      yield* store.remove(ID)
    }).pipe(Effect.provide(Layer.fresh(ArtifactStore.layerS3(s3.options)))))

  it.effect("the filesystem store signs no URL", () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-artifacts-fs-"))
    return Effect.gen(function*() {
      const store = yield* ArtifactStore
      yield* store.put(ID, new Uint8Array([1]))
      expect(yield* store.presignGet(ID, 60)).toBeUndefined()
    }).pipe(Effect.provide(ArtifactStore.layerFs(dir)), Effect.ensuring(Effect.sync(() => rmSync(dir, { recursive: true, force: true }))))
  })
})
