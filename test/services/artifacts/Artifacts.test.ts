/**
 * The artifacts service on every test database, with the filesystem store in
 * a temporary directory and stand-ins for the policy bundle, the event bus
 * and the domain events: `put` (bytes, sha256, labels, link) and the
 * run-scoped reads' rules (malformed id, unknown, unlinked, another run's,
 * policy deny / require_approval, bytes deleted), with their events and
 * audit decisions.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { TestClock } from "effect/testing"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { Artifacts } from "../../../services/artifacts/Artifacts.ts"
import { ArtifactsRepo } from "../../../services/artifacts/ArtifactsRepo.ts"
import { ArtifactStore } from "../../../services/artifacts/ArtifactStore.ts"
import { SWEEP_INTERVAL } from "../../../services/artifacts/retention.ts"
import { DomainEvents } from "../../../services/domain-events/DomainEvents.ts"
import { DEFAULT_POLICY_BUNDLE, mergePolicyBundles } from "../../../services/policy-bundle/bundle.ts"
import { PolicyBundle } from "../../../services/policy-bundle/PolicyBundle.ts"
import type { BundleDecision } from "../../../services/policy-bundle/schema.ts"
import { sha256Hex } from "../../../services/shared/sha256.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import { testDatabases } from "../../support/databases.ts"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const bundleWith = (decision: BundleDecision) => mergePolicyBundles([{ ...DEFAULT_POLICY_BUNDLE, artifacts: { default: decision } }])

/** Snapshots `snap-allow`, `snap-deny`, `snap-approval`; the effective bundle allows, with `retention.days` (none unless set). */
const retention: { days: number | undefined } = { days: undefined }
const fakePolicy = Layer.succeed(PolicyBundle, {
  getSnapshot: (id: string) => {
    const decision = ({ "snap-allow": "allow", "snap-deny": "deny", "snap-approval": "require_approval" } as const)[id]
    return Effect.succeed(decision === undefined ? undefined : { policy_snapshot_id: id, sha256: "x", created_at: "", bundle: bundleWith(decision) })
  },
  effective: Effect.sync(() => {
    const bundle = bundleWith("allow")
    return { bundle: { ...bundle, artifacts: { ...bundle.artifacts, ...(retention.days === undefined ? {} : { retention_days: retention.days }) } } }
  })
} as unknown as PolicyBundle["Service"])

const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
    const error = exit.cause.reasons.find((r) => r._tag === "Fail") as { error: { _tag: string; message: string } } | undefined
    if (error === undefined) throw new Error("expected a typed failure")
    return { tag: error.error._tag, message: error.error.message }
  })

const link = (run_id: string, policy_snapshot_id?: string) => ({
  run_id,
  step_id: `${run_id}:0`,
  attempt_id: `${run_id}:0:1`,
  agent_id: "agent-7",
  ...(policy_snapshot_id === undefined ? {} : { policy_snapshot_id })
})

for (const db of testDatabases) {
  describe(`Artifacts on ${db.name}`, () => {
    const setup = () => {
      const dir = mkdtempSync(join(tmpdir(), "svc-artifacts-"))
      dirs.push(dir)
      const published: Array<{ type: string; payload: unknown; scope: unknown }> = []
      const decisions: Array<unknown> = []
      const bus = Layer.succeed(EventBus, {
        publish: (event: { type: string }, payload: unknown, scope: unknown) =>
          Effect.sync(() => void published.push({ type: event.type, payload, scope })),
        sendTo: () => Effect.die("unused")
      } as unknown as EventBus["Service"])
      const domain = Layer.succeed(DomainEvents, {
        publishOrLog: (_event: unknown, payload: unknown) => Effect.sync(() => void decisions.push(payload))
      } as unknown as DomainEvents["Service"])
      const layer = Artifacts.layerNoDeps.pipe(
        Layer.provideMerge(ArtifactsRepo.layer),
        Layer.provideMerge(ArtifactStore.layerFs(dir)),
        Layer.provide(Layer.mergeAll(fakePolicy, bus, domain)),
        Layer.provideMerge(db.make())
      )
      return { layer, published, decisions, dir }
    }

    it.effect("put stores bytes and metadata, answers the ref, announces artifact.created; get/read/listForAttempt", () => {
      const { layer, published } = setup()
      return Effect.gen(function*() {
        const artifacts = yield* Artifacts
        const bytes = new TextEncoder().encode("{\"hello\":1}")
        const ref = yield* artifacts.put({
          kind: "http_trace",
          bytes,
          mime_type: "application/json",
          labels: ["http", "http"],
          metadata: { status: 200 },
          link: link("run-1", "snap-allow")
        })
        expect(ref).toMatchObject({
          kind: "http_trace",
          uri: `artifact://${ref.artifact_id}`,
          mime_type: "application/json",
          size_bytes: bytes.byteLength,
          sha256: sha256Hex(bytes),
          labels: ["http"],
          metadata: { status: 200 }
        })
        const stored = yield* artifacts.get(ref.artifact_id)
        expect(stored?.ref).toEqual(ref)
        expect(stored?.link).toMatchObject({ run_id: "run-1", step_id: "run-1:0", attempt_id: "run-1:0:1", policy_snapshot_id: "snap-allow" })
        expect((yield* artifacts.read(ref.artifact_id))?.bytes).toEqual(bytes)
        expect(yield* artifacts.listForAttempt("run-1:0:1")).toEqual([ref])
        expect(published).toEqual([{
          type: "artifact.created",
          payload: { artifact: ref, run_id: "run-1", step_id: "run-1:0", attempt_id: "run-1:0:1" },
          scope: { kind: "run", run_id: "run-1" }
        }])
        // Unlinked (a memory export): readable by its producer, never through a run.
        const exported = yield* artifacts.put({ kind: "file", bytes: new Uint8Array([1, 2]), labels: ["memory", "memory_v1", "export"] })
        expect(exported.labels).toEqual(["memory", "memory_v1", "export"])
        expect((yield* artifacts.get(exported.artifact_id))?.link).toBeUndefined()
        expect(yield* artifacts.get("not-a-uuid")).toBeUndefined()
      }).pipe(Effect.provide(layer))
    })

    it.effect("run-scoped reads: metadata with scope, bytes; the refusals in order; fetched event and decisions", () => {
      const { layer, published, decisions } = setup()
      return Effect.gen(function*() {
        const artifacts = yield* Artifacts
        const bytes = new TextEncoder().encode("trace")
        const ref = yield* artifacts.put({ kind: "http_trace", bytes, link: link("run-1", "snap-allow") })
        const meta = yield* artifacts.metadataForRun("run-1", ref.artifact_id.toUpperCase())
        expect(meta).toEqual({
          artifact: ref,
          scope: {
            workspace_id: "default",
            agent_id: "agent-7",
            run_id: "run-1",
            step_id: "run-1:0",
            attempt_id: "run-1:0:1",
            sensitivity: "normal",
            policy_snapshot_id: "snap-allow"
          }
        })
        const served = yield* artifacts.bytesForRun("run-1", ref.artifact_id)
        expect("bytes" in served ? served.bytes : undefined).toEqual(bytes)
        expect(published.at(-1)).toEqual({
          type: "artifact.fetched",
          payload: { artifact_id: ref.artifact_id, run_id: "run-1" },
          scope: { kind: "run", run_id: "run-1" }
        })
        expect(decisions.at(-1)).toEqual({
          chain: "gateway.artifacts",
          action: { type: "artifact.fetched", artifact_id: ref.artifact_id, run_id: "run-1" }
        })

        expect(yield* failure(artifacts.bytesForRun("run-1", "nope"))).toEqual({ tag: "InvalidRequest", message: "invalid artifact id" })
        expect(yield* failure(artifacts.metadataForRun("run-1", "00000000-0000-4000-8000-000000000000"))).toEqual({
          tag: "NotFound",
          message: "artifact not found"
        })
        // Another run's artifact does not exist for this run.
        expect(yield* failure(artifacts.bytesForRun("run-2", ref.artifact_id))).toEqual({ tag: "NotFound", message: "artifact not found" })
        const unlinked = yield* artifacts.put({ kind: "other", bytes })
        expect(yield* failure(artifacts.bytesForRun("run-1", unlinked.artifact_id))).toEqual({
          tag: "Forbidden",
          message: "artifact has no durable run linkage"
        })
        const denied = yield* artifacts.put({ kind: "log", bytes, link: link("run-3", "snap-deny") })
        expect(yield* failure(artifacts.metadataForRun("run-3", denied.artifact_id))).toEqual({
          tag: "Forbidden",
          message: "the run's policy denies artifact access"
        })
        const approval = yield* artifacts.put({ kind: "log", bytes, link: link("run-4", "snap-approval") })
        expect(yield* failure(artifacts.bytesForRun("run-4", approval.artifact_id))).toEqual({
          tag: "ArtifactApprovalRequired",
          message: "artifact access requires approval"
        })
        expect(decisions.at(-1)).toEqual({
          chain: "gateway.artifacts",
          action: { type: "artifact.fetch_denied", artifact_id: approval.artifact_id, run_id: "run-4", reason: "artifact access requires approval" }
        })
        // Without a snapshot the effective bundle decides (allow).
        const noSnapshot = yield* artifacts.put({ kind: "log", bytes, link: link("run-5") })
        expect((yield* artifacts.metadataForRun("run-5", noSnapshot.artifact_id)).scope.policy_snapshot_id).toBeNull()
      }).pipe(Effect.provide(layer))
    })

    it.effect("bytes deleted (retention) answer 404; the metadata stays", () => {
      const { layer } = setup()
      return Effect.gen(function*() {
        const artifacts = yield* Artifacts
        const repo = yield* ArtifactsRepo
        const store = yield* ArtifactStore
        const ref = yield* artifacts.put({ kind: "log", bytes: new Uint8Array([1]), link: link("run-1") })
        yield* store.remove(ref.artifact_id)
        expect(yield* repo.markDeleted(ref.artifact_id, "2026-01-01T00:00:00.000Z")).toBe(true)
        expect(yield* repo.markDeleted(ref.artifact_id, "2026-01-01T00:00:00.000Z")).toBe(false)
        expect(yield* failure(artifacts.bytesForRun("run-1", ref.artifact_id))).toEqual({
          tag: "NotFound",
          message: "artifact bytes were deleted by retention"
        })
        expect((yield* artifacts.metadataForRun("run-1", ref.artifact_id)).artifact).toEqual(ref)
        expect((yield* artifacts.get(ref.artifact_id))?.deleted_at).toBe("2026-01-01T00:00:00.000Z")
        expect(yield* artifacts.read(ref.artifact_id)).toBeUndefined()
      }).pipe(Effect.provide(layer))
    })

    it.effect("the retention sweep (on TestClock) deletes bytes older than retention_days; rows keep deleted_at", () => {
      const { layer } = setup()
      return Effect.gen(function*() {
        const artifacts = yield* Artifacts
        const store = yield* ArtifactStore
        const old = yield* artifacts.put({ kind: "log", bytes: new Uint8Array([1]), link: link("run-1") })
        // No retention configured: nothing is deleted, however old.
        retention.days = undefined
        yield* TestClock.adjust("40 days")
        expect(yield* artifacts.sweep).toBe(0)
        retention.days = 30
        const young = yield* artifacts.put({ kind: "log", bytes: new Uint8Array([2]), link: link("run-1") })
        yield* TestClock.adjust(SWEEP_INTERVAL)
        expect(yield* artifacts.sweep).toBe(1)
        expect((yield* artifacts.get(old.artifact_id))?.deleted_at).toBe(new Date(Date.UTC(1970, 1, 10, 1)).toISOString())
        expect(yield* store.get(old.artifact_id)).toBeUndefined()
        expect((yield* artifacts.get(young.artifact_id))?.deleted_at).toBeUndefined()
        expect(yield* failure(artifacts.bytesForRun("run-1", old.artifact_id))).toMatchObject({ tag: "NotFound" })
        expect(yield* artifacts.sweep).toBe(0)
        // 30 days later the young one goes too; its metadata stays readable.
        yield* TestClock.adjust("30 days")
        expect(yield* artifacts.sweep).toBe(1)
        expect((yield* artifacts.get(young.artifact_id))?.deleted_at).toBeDefined()
        expect((yield* artifacts.metadataForRun("run-1", young.artifact_id)).artifact.artifact_id).toBe(young.artifact_id)
        retention.days = undefined
      }).pipe(Effect.provide(layer))
    })
  })
}
