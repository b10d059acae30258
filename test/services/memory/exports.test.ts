/**
 * Memory exports on every test database (issue 24 §1 "Exports"): the export
 * artifact holds `{v, exported_at, filter, include_tombstones, items,
 * tombstones?}` with the labels `memory`, `memory_v1`, `export`; the filter
 * and the agent select the items (another agent's never); tombstones only
 * when asked; pages beyond one query; `memory.export.completed` and the
 * `memory.exported` audit decision; the download refuses a malformed id
 * (400), an unknown one and another producer's artifact (404); a forget then
 * export round trip.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll } from "vitest"
import { Artifacts } from "../../../services/artifacts/Artifacts.ts"
import { ArtifactsRepo } from "../../../services/artifacts/ArtifactsRepo.ts"
import { ArtifactStore } from "../../../services/artifacts/ArtifactStore.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { MEMORY_EXPORT_LABELS } from "../../../services/memory/exportSchema.ts"
import { Memory, MEMORY_CHAIN } from "../../../services/memory/Memory.ts"
import { EXPORT_PAGE, MemoryExports } from "../../../services/memory/MemoryExports.ts"
import { MemoryRepo } from "../../../services/memory/MemoryRepo.ts"
import type { MemoryItemInput } from "../../../services/memory/schema.ts"
import { PolicyBundle } from "../../../services/policy-bundle/PolicyBundle.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { devicePrincipal, fakeConnection } from "../../support/connections.ts"
import { testDatabases } from "../../support/databases.ts"
import { memoryLayer } from "./support.ts"

const dirs: Array<string> = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const note = (title: string, extra: Partial<MemoryItemInput> = {}): MemoryItemInput =>
  ({ kind: "note", title, body_md: `${title} body`, ...extra }) as MemoryItemInput

const errorOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.flip(effect), (e) => ({ tag: (e as any)._tag, message: (e as any).message }))

/** The policy bundle is only read by the run-scoped artifact reads, which exports never use. */
const noPolicy = Layer.succeed(PolicyBundle, {} as PolicyBundle["Service"])

const exportsLayer = (db: (typeof testDatabases)[number]) => {
  const dir = mkdtempSync(join(tmpdir(), "svc-memory-exports-"))
  dirs.push(dir)
  return MemoryExports.layerNoDeps.pipe(
    Layer.provideMerge(Artifacts.layerNoDeps),
    Layer.provideMerge(ArtifactsRepo.layer),
    Layer.provideMerge(ArtifactStore.layerFs(dir)),
    Layer.provideMerge(noPolicy),
    Layer.provideMerge(memoryLayer(db))
  )
}

const documentOf = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes))

for (const db of testDatabases) {
  describe(`Memory exports on ${db.name}`, () => {
    const provide = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(Effect.provide(exportsLayer(db))) as Effect.Effect<A, E>

    it.effect("exports the filtered items of one agent, with tombstones only when asked, and serves them back", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        const exports = yield* MemoryExports
        const artifacts = yield* Artifacts
        const registry = yield* ConnectionRegistry
        const reader = fakeConnection({ id: "reader", principal: devicePrincipal("d1", ["operator.read"]) })
        yield* registry.add(reader.handle)

        const deploy = (yield* memory.create(note("Deploy checklist", { tags: ["deploy"], agent_id: "ops" }))).item
        const sensitive = (yield* memory.create(note("Deploy keys", { tags: ["deploy"], sensitivity: "sensitive", agent_id: "ops" }))).item
        yield* memory.create(note("Lunch", { tags: ["social"], agent_id: "ops" }))
        yield* memory.create(note("Deploy elsewhere", { tags: ["deploy"] }))
        const dropped = (yield* memory.create(note("Old deploy", { tags: ["deploy"], agent_id: "ops" }))).item
        const tombstone = (yield* memory.delete(dropped.memory_item_id, "stale", "ops")).tombstone

        const plain = yield* exports.export({ filter: { agent_id: "ops", tags: ["deploy"] } })
        expect(plain.v).toBe(1)
        const download = yield* exports.download(plain.artifact_id)
        expect(download.filename).toBe(`svc-memory-export-${plain.artifact_id}.json`)
        const doc = documentOf(download.bytes)
        expect(doc).toMatchObject({ v: 1, filter: { agent_id: "ops", tags: ["deploy"] }, include_tombstones: false })
        expect(typeof doc.exported_at).toBe("string")
        // Newest first, ties (one TestClock instant here) by id descending: the order of memory.list.
        const byIdDesc = (a: { memory_item_id: string }, b: { memory_item_id: string }) => (a.memory_item_id < b.memory_item_id ? 1 : -1)
        expect(doc.items).toEqual([sensitive, deploy].sort(byIdDesc))
        expect("tombstones" in doc).toBe(false)

        const withTombstones = yield* exports.export({ filter: { agent_id: "ops" }, include_tombstones: true })
        const full = documentOf((yield* exports.download(withTombstones.artifact_id)).bytes)
        expect(full.items).toHaveLength(3)
        expect(full.items.every((item: { agent_id: string }) => item.agent_id === "ops")).toBe(true)
        expect(full.tombstones).toEqual([tombstone])

        const stored = yield* artifacts.get(plain.artifact_id)
        expect(stored?.ref).toMatchObject({ kind: "file", mime_type: "application/json", labels: [...MEMORY_EXPORT_LABELS] })
        expect(stored?.sensitivity).toBe("sensitive")
        expect(stored?.link).toBeUndefined()

        const completed = reader.events("memory.export.completed").map((e) => e.payload)
        expect(completed).toEqual([
          { v: 1, artifact_id: plain.artifact_id, agent_id: "ops", item_count: 2, tombstone_count: 0 },
          { v: 1, artifact_id: withTombstones.artifact_id, agent_id: "ops", item_count: 3, tombstone_count: 1 }
        ])
        const audit = yield* AuditLog
        const chain = yield* audit.events(MEMORY_CHAIN)
        expect(audit.verify(chain).valid).toBe(true)
        const exported = chain.map((e) => e.action as { type: string }).filter((a) => a.type === "memory.exported")
        expect(exported).toEqual([
          { type: "memory.exported", artifact_id: plain.artifact_id, include_tombstones: false, agent_id: "ops", item_count: 2, tombstone_count: 0 },
          { type: "memory.exported", artifact_id: withTombstones.artifact_id, include_tombstones: true, agent_id: "ops", item_count: 3, tombstone_count: 1 }
        ])
        expect(JSON.stringify(chain)).not.toContain("Deploy checklist")
      })))

    it.effect("refuses a malformed id (400), an unknown id and another producer's artifact (404)", () =>
      provide(Effect.gen(function*() {
        const exports = yield* MemoryExports
        const artifacts = yield* Artifacts
        expect(yield* errorOf(exports.download("not-an-id"))).toEqual({
          tag: "InvalidRequest",
          message: "invalid export id: expected an artifact id (a UUID)"
        })
        expect(yield* errorOf(exports.download(crypto.randomUUID()))).toEqual({ tag: "NotFound", message: "memory export not found" })
        const other = yield* artifacts.put({ kind: "file", bytes: new Uint8Array([1]), labels: ["memory", "export"] })
        expect(yield* errorOf(exports.download(other.artifact_id))).toEqual({ tag: "NotFound", message: "memory export not found" })
        const empty = yield* exports.export({})
        expect(documentOf((yield* exports.download(empty.artifact_id.toUpperCase())).bytes)).toMatchObject({
          filter: { agent_id: "default" },
          items: []
        })
      })))

    it.effect("pages through more items than one query reads; a forgotten item is gone from the next export", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        const exports = yield* MemoryExports
        const repo = yield* MemoryRepo
        const count = EXPORT_PAGE + 3
        yield* repo.transaction(Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
          memory.create(note(`Item ${i}`, { tags: i === 7 ? ["scratch"] : [] })), { discard: true }))
        const before = documentOf((yield* exports.download((yield* exports.export({})).artifact_id)).bytes)
        expect(before.items).toHaveLength(count)
        expect(new Set(before.items.map((i: { memory_item_id: string }) => i.memory_item_id)).size).toBe(count)

        const forgot = yield* memory.forget({ confirm: "FORGET", selectors: [{ kind: "tag", tag: "scratch" }] })
        expect(forgot.deleted_count).toBe(1)
        const after = documentOf((yield* exports.download((yield* exports.export({ include_tombstones: true })).artifact_id)).bytes)
        expect(after.items).toHaveLength(count - 1)
        expect(after.tombstones.map((t: { memory_item_id: string }) => t.memory_item_id)).toEqual([forgot.tombstones[0].memory_item_id])
        expect(after.items.some((i: { title: string }) => i.title === "Item 7")).toBe(false)
      })))
  })
}
