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
import type { BundleDecision, MergedPolicyBundle } from "../../../services/policy-bundle/schema.ts"
import { sha256Hex } from "../../../services/shared/sha256.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import { testDatabases } from "../../support/databases.ts"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const bundleWith = (decision: BundleDecision) => mergePolicyBundles([{ ...DEFAULT_POLICY_BUNDLE, artifacts: { default: decision } }])

/**
 * Snapshots `snap-allow`, `snap-deny`, `snap-approval`; the effective bundle allows, with `retention.days` (none unless
 * set) and whatever `limits.artifacts` adds (quotas, retention rules, `max_total_bytes`).
 */
const retention: { days: number | undefined } = { days: undefined }
const limits: { artifacts: Partial<MergedPolicyBundle["artifacts"]> } = { artifacts: {} }
const fakePolicy = Layer.succeed(PolicyBundle, {
  getSnapshot: (id: string) => {
    const decision = ({ "snap-allow": "allow", "snap-deny": "deny", "snap-approval": "require_approval" } as const)[id]
    return Effect.succeed(decision === undefined ? undefined : { policy_snapshot_id: id, sha256: "x", created_at: "", bundle: bundleWith(decision) })
  },
  effective: Effect.sync(() => {
    const bundle = bundleWith("allow")
    return {
      bundle: {
        ...bundle,
        artifacts: { ...bundle.artifacts, ...(retention.days === undefined ? {} : { retention_days: retention.days }), ...limits.artifacts }
      }
    }
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

    it.effect("quotas at put: max_bytes, then each quota rule covering the artifact (bytes not deleted); over → ArtifactQuotaExceeded, nothing stored", () => {
      const { layer, published } = setup()
      return Effect.gen(function*() {
        const artifacts = yield* Artifacts
        const repo = yield* ArtifactsRepo
        const bytes = (n: number) => new Uint8Array(n)
        const quotaFailure = (effect: Effect.Effect<unknown, unknown>) =>
          Effect.map(Effect.exit(effect), (exit) => {
            if (Exit.isSuccess(exit)) throw new Error("expected ArtifactQuotaExceeded")
            const reason = exit.cause.reasons.find((r) => r._tag === "Fail") as { error: any } | undefined
            return { tag: reason?.error._tag, message: reason?.error.message, details: reason?.error.details }
          })
        limits.artifacts = {
          max_bytes: 100,
          quota: {
            default_max_bytes: 250,
            by_label: { shots: 60 },
            by_sensitivity: { sensitive: 50 },
            by_label_sensitivity: { logs: { sensitive: 20 } }
          }
        }
        expect(yield* quotaFailure(artifacts.put({ kind: "file", bytes: bytes(101) }))).toEqual({
          tag: "ArtifactQuotaExceeded",
          message: "artifact of 101 bytes is larger than artifacts.max_bytes (100)",
          details: { rule: "max_bytes", limit_bytes: 100, used_bytes: 0, size_bytes: 101 }
        })
        // by_label: what carries `shots` counts, nothing else.
        yield* artifacts.put({ kind: "screenshot", bytes: bytes(40), labels: ["shots"], link: link("run-1") })
        yield* artifacts.put({ kind: "file", bytes: bytes(30), labels: ["other"] })
        expect(yield* quotaFailure(artifacts.put({ kind: "screenshot", bytes: bytes(21), labels: ["shots", "x"] }))).toEqual({
          tag: "ArtifactQuotaExceeded",
          message: "artifact quota exceeded: quota.by_label.shots allows 60 bytes, 40 are stored, this artifact has 21",
          details: { rule: "quota.by_label.shots", limit_bytes: 60, used_bytes: 40, size_bytes: 21 }
        })
        yield* artifacts.put({ kind: "screenshot", bytes: bytes(20), labels: ["shots"] })
        // by_label_sensitivity (logs, sensitive: 20) and by_sensitivity (sensitive: 50).
        yield* artifacts.put({ kind: "log", bytes: bytes(15), labels: ["logs"], sensitivity: "sensitive" })
        expect((yield* quotaFailure(artifacts.put({ kind: "log", bytes: bytes(6), labels: ["logs"], sensitivity: "sensitive" }))).details)
          .toEqual({ rule: "quota.by_label_sensitivity.logs.sensitive", limit_bytes: 20, used_bytes: 15, size_bytes: 6 })
        // A normal `logs` artifact is not in that pool.
        yield* artifacts.put({ kind: "log", bytes: bytes(6), labels: ["logs"] })
        yield* artifacts.put({ kind: "file", bytes: bytes(30), sensitivity: "sensitive" })
        expect((yield* quotaFailure(artifacts.put({ kind: "file", bytes: bytes(6), sensitivity: "sensitive" }))).details)
          .toEqual({ rule: "quota.by_sensitivity.sensitive", limit_bytes: 50, used_bytes: 45, size_bytes: 6 })
        // default_max_bytes: everything (141 stored).
        expect(yield* repo.liveBytes({})).toBe(141)
        yield* artifacts.put({ kind: "file", bytes: bytes(100) })
        expect((yield* quotaFailure(artifacts.put({ kind: "file", bytes: bytes(10) }))).details)
          .toEqual({ rule: "quota.default_max_bytes", limit_bytes: 250, used_bytes: 241, size_bytes: 10 })
        // Deleted bytes no longer count.
        const big = (yield* repo.listForRun("run-1"))[0]!
        yield* repo.markDeleted(big.ref.artifact_id, "2026-01-01T00:00:00.000Z")
        expect(yield* repo.liveBytes({ label: "shots" })).toBe(20)
        yield* artifacts.put({ kind: "file", bytes: bytes(9) })
        // Refused artifacts were neither stored nor announced.
        expect(published.filter((e) => e.type === "artifact.created")).toHaveLength(8)
        limits.artifacts = {}
      }).pipe(Effect.provide(layer), Effect.ensuring(Effect.sync(() => void (limits.artifacts = {}))))
    })

    it.effect("attach stores like put and announces artifact.attached after artifact.created", () => {
      const { layer, published } = setup()
      return Effect.gen(function*() {
        const artifacts = yield* Artifacts
        const ref = yield* artifacts.attach({ kind: "screenshot", bytes: new Uint8Array([7]), link: link("run-9") })
        expect(published.map((e) => e.type)).toEqual(["artifact.created", "artifact.attached"])
        expect(published[1]).toEqual({
          type: "artifact.attached",
          payload: { artifact: ref, run_id: "run-9", step_id: "run-9:0", attempt_id: "run-9:0:1" },
          scope: { kind: "run", run_id: "run-9" }
        })
        expect(yield* artifacts.listForAttempt("run-9:0:1")).toEqual([ref])
      }).pipe(Effect.provide(layer))
    })

    it.effect("per-label and per-sensitivity retention (TestClock): the most specific rule, the shortest of several labels", () => {
      const { layer } = setup()
      return Effect.gen(function*() {
        const artifacts = yield* Artifacts
        limits.artifacts = {
          retention: {
            default_days: 30,
            by_label: { short: 1, long: 60 },
            by_sensitivity: { sensitive: 5 },
            by_label_sensitivity: { long: { sensitive: 2 } }
          }
        }
        const put = (labels: Array<string>, sensitivity: "normal" | "sensitive" = "normal") =>
          Effect.map(artifacts.put({ kind: "log", bytes: new Uint8Array([1]), labels, sensitivity }), (r) => r.artifact_id)
        const plain = yield* put([])
        const short = yield* put(["short"])
        const long = yield* put(["long"])
        const sensitive = yield* put([], "sensitive")
        const longSensitive = yield* put(["long"], "sensitive")
        const both = yield* put(["long", "short"])
        const deleted = (id: string) => Effect.map(artifacts.get(id), (s) => s?.deleted_at !== undefined)
        const alive = () =>
          Effect.forEach([plain, short, long, sensitive, longSensitive, both], (id) => Effect.map(deleted(id), (d) => !d))
        expect(yield* artifacts.sweep).toBe(0)
        yield* TestClock.adjust("25 hours")
        expect(yield* artifacts.sweep).toBe(2)
        expect(yield* alive()).toEqual([true, false, true, true, true, false])
        yield* TestClock.adjust("1 day")
        expect(yield* artifacts.sweep).toBe(1)
        expect(yield* alive()).toEqual([true, false, true, true, false, false])
        yield* TestClock.adjust("3 days")
        expect(yield* artifacts.sweep).toBe(1)
        yield* TestClock.adjust("25 days")
        expect(yield* artifacts.sweep).toBe(1)
        expect(yield* alive()).toEqual([false, false, true, false, false, false])
        yield* TestClock.adjust("30 days")
        expect(yield* artifacts.sweep).toBe(1)
        expect(yield* alive()).toEqual([false, false, false, false, false, false])
      }).pipe(Effect.provide(layer), Effect.ensuring(Effect.sync(() => void (limits.artifacts = {}))))
    })

    it.effect("max_total_bytes: the sweep deletes the oldest bytes until the rest fit", () => {
      const { layer } = setup()
      return Effect.gen(function*() {
        const artifacts = yield* Artifacts
        const store = yield* ArtifactStore
        const ids: Array<string> = []
        for (let i = 0; i < 4; i++) {
          ids.push((yield* artifacts.put({ kind: "file", bytes: new Uint8Array(10) })).artifact_id)
          yield* TestClock.adjust("1 minute")
        }
        expect(yield* artifacts.sweep).toBe(0)
        limits.artifacts = { max_total_bytes: 25 }
        expect(yield* artifacts.sweep).toBe(2)
        const gone = yield* Effect.forEach(ids, (id) => Effect.map(artifacts.get(id), (s) => s?.deleted_at !== undefined))
        expect(gone).toEqual([true, true, false, false])
        expect(yield* store.get(ids[0]!)).toBeUndefined()
        expect(yield* artifacts.sweep).toBe(0)
      }).pipe(Effect.provide(layer), Effect.ensuring(Effect.sync(() => void (limits.artifacts = {}))))
    })
  })
}
