/**
 * The memory service on every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set), the same cases on both: records of each
 * kind with their defaults, get/update/delete/forget with tombstones and
 * their errors, listing filters and keyset pages (tampered and foreign
 * cursors refused), limit clamping, ranked keyword search (a title match
 * above a single body mention), agent isolation, events and audit decisions.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { TestClock } from "effect/testing"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Memory, MEMORY_CHAIN } from "../../../services/memory/Memory.ts"
import type { MemoryItemInput } from "../../../services/memory/schema.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { devicePrincipal, fakeConnection } from "../../support/connections.ts"
import { testDatabases } from "../../support/databases.ts"
import { memoryLayer } from "./support.ts"

const note = (title: string, body: string, extra: Partial<MemoryItemInput> = {}): MemoryItemInput =>
  ({ kind: "note", title, body_md: body, ...extra }) as MemoryItemInput

const errorOf = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.flip(effect), (e) => ({ tag: (e as any)._tag, message: (e as any).message }))

for (const db of testDatabases) {
  describe(`Memory on ${db.name}`, () => {
    const provide = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(Effect.provide(memoryLayer(db))) as Effect.Effect<A, E>

    it.effect("creates each kind with its defaults, gets it, and refuses an unknown id", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        const fact = (yield* memory.create({
          kind: "fact",
          key: "timezone",
          value: { tz: "Europe/Paris" },
          observed_at: "2026-11-01T00:00:00Z",
          confidence: 0.9,
          tags: ["prefs", "prefs"],
          provenance: { source_kind: "user", channel: "telegram" }
        })).item
        expect(fact).toMatchObject({
          v: 1,
          agent_id: "default",
          kind: "fact",
          key: "timezone",
          value: { tz: "Europe/Paris" },
          confidence: 0.9,
          tags: ["prefs"],
          sensitivity: "private",
          provenance: { source_kind: "user", channel: "telegram", refs: [] },
          created_at: "1970-01-01T00:00:00.000Z"
        })
        expect(fact).not.toHaveProperty("updated_at")
        expect(fact.memory_item_id).toMatch(/^[0-9a-f-]{36}$/)
        const episode = (yield* memory.create({ kind: "episode", occurred_at: "2026-11-02T10:00:00Z", summary_md: "Shipped v2" })).item
        expect(episode).toMatchObject({ kind: "episode", summary_md: "Shipped v2", provenance: { source_kind: "operator", refs: [] } })
        const procedure = (yield* memory.create({ kind: "procedure", body_md: "1. build\n2. test", sensitivity: "public" })).item
        expect(procedure).not.toHaveProperty("title")
        expect(yield* memory.get(fact.memory_item_id)).toEqual({ v: 1, item: fact })
        expect(yield* errorOf(memory.get("00000000-0000-4000-8000-000000000000"))).toEqual({ tag: "NotFound", message: "memory item not found" })
      })))

    it.effect("never shows an agent's items to another agent", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        const mine = (yield* memory.create({ ...note("Secret plan", "alpha bravo"), agent_id: "agent-a" } as MemoryItemInput)).item
        yield* memory.create(note("Default plan", "alpha"))
        expect(yield* errorOf(memory.get(mine.memory_item_id))).toMatchObject({ tag: "NotFound" })
        expect((yield* memory.get(mine.memory_item_id, "agent-a")).item).toEqual(mine)
        expect((yield* memory.list({})).items.map((i) => i.agent_id)).toEqual(["default"])
        expect((yield* memory.list({ filter: { agent_id: "agent-a" } })).items).toEqual([mine])
        expect((yield* memory.search({ query: "alpha" })).hits).toHaveLength(1)
        expect((yield* memory.search({ query: "bravo" })).hits).toEqual([])
        expect((yield* memory.search({ query: "bravo", filter: { agent_id: "agent-a" } })).hits.map((h) => h.memory_item_id))
          .toEqual([mine.memory_item_id])
        expect(yield* errorOf(memory.delete(mine.memory_item_id))).toMatchObject({ tag: "NotFound" })
        expect(yield* errorOf(memory.update(mine.memory_item_id, { title: "x" }))).toMatchObject({ tag: "NotFound" })
        const forgot = yield* memory.forget({ confirm: "FORGET", selectors: [{ kind: "id", memory_item_id: mine.memory_item_id }] })
        expect(forgot).toEqual({ v: 1, deleted_count: 0, tombstones: [] })
      })))

    it.effect("patches within the kind and refuses another kind's fields, naming them", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        const item = (yield* memory.create(note("Old", "body"))).item
        yield* TestClock.adjust(Duration.seconds(5))
        const updated = (yield* memory.update(item.memory_item_id, { title: "New", tags: ["a"], sensitivity: "sensitive" })).item
        expect(updated).toEqual({ ...item, title: "New", tags: ["a"], sensitivity: "sensitive", updated_at: "1970-01-01T00:00:05.000Z" })
        expect((yield* memory.get(item.memory_item_id)).item).toEqual(updated)
        expect(yield* errorOf(memory.update(item.memory_item_id, { key: "k", summary_md: "s", title: "t" }))).toEqual({
          tag: "InvalidRequest",
          message: "incompatible patch fields for kind=note: key, summary_md"
        })
        expect(yield* errorOf(memory.update(item.memory_item_id, {}))).toMatchObject({ tag: "InvalidRequest" })
        expect(yield* errorOf(memory.update("00000000-0000-4000-8000-000000000000", { title: "x" })))
          .toEqual({ tag: "NotFound", message: "memory item not found" })
        // the new title is what search finds
        expect((yield* memory.search({ query: "new" })).hits.map((h) => h.memory_item_id)).toEqual([item.memory_item_id])
        expect((yield* memory.search({ query: "old" })).hits).toEqual([])
      })))

    it.effect("applies concurrent patches of different fields one after the other (none is lost)", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        const item = (yield* memory.create(note("T0", "b0"))).item
        yield* Effect.all([
          memory.update(item.memory_item_id, { title: "T1" }),
          memory.update(item.memory_item_id, { tags: ["t"] }),
          memory.update(item.memory_item_id, { body_md: "b1" }),
          memory.update(item.memory_item_id, { sensitivity: "public" })
        ], { concurrency: "unbounded" })
        expect((yield* memory.get(item.memory_item_id)).item).toMatchObject({ title: "T1", tags: ["t"], body_md: "b1", sensitivity: "public" })
      })))

    it.effect("deletes with a tombstone, forgets by id, key, tag and provenance with the exact confirmation", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        const registry = yield* ConnectionRegistry
        const reader = fakeConnection({ id: "reader", principal: devicePrincipal("d1", ["operator.read"]) })
        const other = fakeConnection({ id: "other", principal: devicePrincipal("d2", ["operator.approvals"]) })
        for (const c of [reader, other]) yield* registry.add(c.handle)
        const a = (yield* memory.create(note("A", "a"))).item
        const fact = (yield* memory.create({ kind: "fact", key: "k1", value: 1, observed_at: "2026-01-01T00:00:00Z", confidence: 1 })).item
        const tagged = (yield* memory.create(note("T", "t", { tags: ["old"] }))).item
        const imported = (yield* memory.create(note("I", "i", { provenance: { source_kind: "import" } }))).item
        const kept = (yield* memory.create(note("K", "k"))).item

        const deleted = yield* memory.delete(a.memory_item_id, "outdated")
        expect(deleted).toEqual({
          v: 1,
          tombstone: { v: 1, memory_item_id: a.memory_item_id, agent_id: "default", deleted_at: "1970-01-01T00:00:00.000Z", deleted_by: "operator", reason: "outdated" }
        })
        expect(yield* errorOf(memory.get(a.memory_item_id))).toMatchObject({ tag: "NotFound" })
        expect(yield* errorOf(memory.delete(a.memory_item_id))).toEqual({ tag: "NotFound", message: "memory item not found" })

        for (const confirm of ["forget", "FORGET ", ""]) {
          expect(yield* errorOf(memory.forget({ confirm, selectors: [{ kind: "tag", tag: "old" }] }))).toMatchObject({ tag: "InvalidRequest" })
        }
        expect((yield* memory.get(tagged.memory_item_id)).item).toEqual(tagged)
        const forgot = yield* memory.forget({
          confirm: "FORGET",
          selectors: [{ kind: "key", key: "k1" }, { kind: "tag", tag: "old" }, { kind: "provenance", source_kind: "import" }, {
            kind: "id",
            memory_item_id: fact.memory_item_id
          }]
        })
        const gone = [fact, tagged, imported].map((i) => i.memory_item_id).sort()
        expect(forgot.deleted_count).toBe(3)
        expect(forgot.tombstones.map((t) => t.memory_item_id)).toEqual(gone)
        expect(forgot.tombstones.every((t) => t.deleted_by === "operator" && t.v === 1)).toBe(true)
        expect((yield* memory.list({})).items.map((i) => i.memory_item_id)).toEqual([kept.memory_item_id])

        expect(reader.events("memory.item.created")).toHaveLength(5)
        expect(reader.events("memory.item.deleted").map((e) => e.payload)).toEqual([deleted])
        expect(reader.events("memory.item.forgotten").map((e) => e.payload)).toEqual([forgot])
        expect(other.received).toEqual([])

        const audit = yield* AuditLog
        const chain = yield* audit.events(MEMORY_CHAIN)
        expect(audit.verify(chain).valid).toBe(true)
        expect(chain.map((e) => (e.action as { type: string }).type)).toEqual([
          ...Array(5).fill("memory.item.created"),
          "memory.item.deleted",
          "memory.forgotten"
        ])
        expect(JSON.stringify(chain)).not.toContain("\"body_md\"")
      })))

    it.effect("forgets more items than one statement names (deleted in chunks), each with its tombstone", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        yield* Effect.forEach(Array.from({ length: 1001 }, (_, i) => i), (i) => memory.create(note(`bulk ${i}`, "b", { tags: ["bulk"] })), { discard: true })
        const kept = (yield* memory.create(note("kept", "b"))).item
        const forgot = yield* memory.forget({ confirm: "FORGET", selectors: [{ kind: "tag", tag: "bulk" }] })
        expect(forgot.deleted_count).toBe(1001)
        expect(new Set(forgot.tombstones.map((t) => t.memory_item_id)).size).toBe(1001)
        expect(forgot.tombstones.map((t) => t.memory_item_id)).toEqual(forgot.tombstones.map((t) => t.memory_item_id).sort())
        expect((yield* memory.list({})).items.map((i) => i.memory_item_id)).toEqual([kept.memory_item_id])
      })), 60_000)

    it.effect("lists newest first with filters, pages with keyset cursors, refuses bad cursors, clamps limit", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        const made: Array<string> = []
        for (let i = 0; i < 7; i++) {
          const item = (yield* memory.create(note(`n${i}`, "b", {
            tags: i % 2 === 0 ? ["even", "x"] : ["odd"],
            sensitivity: i === 3 ? "public" : "private",
            provenance: { source_kind: i === 5 ? "tool" : "operator" }
          }))).item
          made.push(item.memory_item_id)
          if (i === 3) yield* TestClock.adjust(Duration.seconds(10)) // items 0..3 share a created_at: ties break by id
        }
        yield* memory.create({ kind: "episode", occurred_at: "2026-01-01T00:00:00Z", summary_md: "e" })
        const all = (yield* memory.list({ filter: { kinds: ["note"] } })).items
        expect(all.map((i) => i.created_at)).toEqual([...all.map((i) => i.created_at)].sort().reverse())
        expect(new Set(all.map((i) => i.memory_item_id))).toEqual(new Set(made))

        const seen: Array<string> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const page = yield* memory.list({ filter: { kinds: ["note"] }, limit: 2, ...(cursor !== undefined ? { cursor } : {}) })
          seen.push(...page.items.map((i) => i.memory_item_id))
          cursor = page.next_cursor
          pages++
        } while (cursor !== undefined)
        expect(pages).toBe(4)
        expect(seen).toEqual(all.map((i) => i.memory_item_id))

        const ids = (filter: any) => Effect.map(memory.list({ filter }), (r) => r.items.map((i) => i.memory_item_id).sort())
        expect(yield* ids({ tags: ["even", "x"] })).toEqual([made[0], made[2], made[4], made[6]].sort())
        expect(yield* ids({ tags: ["even", "odd"] })).toEqual([])
        expect(yield* ids({ sensitivities: ["public"] })).toEqual([made[3]])
        expect(yield* ids({ provenance: { source_kinds: ["tool"] } })).toEqual([made[5]])
        expect((yield* ids({ kinds: ["episode"] }))).toHaveLength(1)
        expect(yield* ids({ kinds: ["note"], created_after: "1970-01-01T00:00:05Z" })).toEqual(made.slice(4).sort())
        expect(yield* ids({ kinds: ["note"], created_before: "1970-01-01T00:00:05Z" })).toEqual(made.slice(0, 4).sort())

        const first = yield* memory.list({ limit: 2 })
        const tampered = first.next_cursor!.slice(0, -3) + (first.next_cursor!.endsWith("AAA") ? "BBB" : "AAA")
        for (const bad of [tampered, "not a cursor", Buffer.from(JSON.stringify(["2026-01-01", 7])).toString("base64url")]) {
          expect(yield* errorOf(memory.list({ cursor: bad }))).toEqual({ tag: "InvalidRequest", message: "invalid cursor" })
        }
        const search = yield* memory.search({ query: "b", limit: 1 })
        expect(yield* errorOf(memory.list({ cursor: search.next_cursor! }))).toEqual({ tag: "InvalidRequest", message: "invalid cursor" })
        expect(yield* errorOf(memory.search({ query: "b", cursor: first.next_cursor! }))).toEqual({ tag: "InvalidRequest", message: "invalid cursor" })
        expect(yield* errorOf(memory.search({ query: "other", cursor: search.next_cursor! }))).toEqual({ tag: "InvalidRequest", message: "invalid cursor" })

        expect((yield* memory.list({ limit: 0 })).items).toHaveLength(1)
        expect((yield* memory.list({ limit: -5 })).items).toHaveLength(1)
        expect((yield* memory.list({ limit: 100_000 })).items).toHaveLength(8)
      })))

    it.effect("ranks a title match above a single body mention, best first, scores in 0..1, with snippets and pages", () =>
      provide(Effect.gen(function*() {
        const memory = yield* Memory
        for (let i = 0; i < 6; i++) yield* memory.create(note(`Filler ${i}`, "nothing to see here about gardening"))
        const body = (yield* memory.create(note("Release notes", "We talked about the kubernetes cluster once."))).item
        const title = (yield* memory.create(note("Kubernetes upgrade", "Steps for the control plane."))).item
        const tag = (yield* memory.create(note("Misc", "unrelated", { tags: ["kubernetes"] }))).item
        const fact = (yield* memory.create({ kind: "fact", key: "cluster_name", value: "prod-kubernetes", observed_at: "2026-01-01T00:00:00Z", confidence: 1 })).item
        const result = yield* memory.search({ query: "Kubernetes" })
        const order = result.hits.map((h) => h.memory_item_id)
        expect(new Set(order)).toEqual(new Set([body, title, tag, fact].map((i) => i.memory_item_id)))
        expect(order.indexOf(title.memory_item_id)).toBeLessThan(order.indexOf(body.memory_item_id))
        expect(order.indexOf(tag.memory_item_id)).toBeLessThan(order.indexOf(body.memory_item_id))
        const scores = result.hits.map((h) => h.score)
        expect(scores).toEqual([...scores].sort((a, b) => b - a))
        expect(scores.every((s) => s > 0 && s <= 1)).toBe(true)
        // the title and the tag weigh the same (either may come first); both above the body mention
        expect(order.slice(0, 2).sort()).toEqual([title.memory_item_id, tag.memory_item_id].sort())
        const titleHit = result.hits.find((h) => h.memory_item_id === title.memory_item_id)!
        expect(titleHit).toMatchObject({ kind: "note", provenance: { source_kind: "operator", refs: [] } })
        expect(titleHit.snippet?.toLowerCase()).toContain("[kubernetes]")
        expect(result.hits.find((h) => h.memory_item_id === body.memory_item_id)!.snippet?.toLowerCase()).toContain("[kubernetes]")
        // stemming: "upgrades" finds "upgrade"; punctuation in the query is ignored
        expect((yield* memory.search({ query: "upgrades!!! (\"" })).hits.map((h) => h.memory_item_id)).toEqual([title.memory_item_id])
        expect((yield* memory.search({ query: "***" })).hits).toEqual([])
        // filters apply to search
        expect((yield* memory.search({ query: "kubernetes", filter: { kinds: ["fact"] } })).hits.map((h) => h.memory_item_id)).toEqual([fact.memory_item_id])
        expect((yield* memory.search({ query: "kubernetes", filter: { tags: ["kubernetes"] } })).hits.map((h) => h.memory_item_id)).toEqual([tag.memory_item_id])
        // pages of the same search
        const seen: Array<string> = []
        let cursor: string | undefined
        do {
          const page = yield* memory.search({ query: "kubernetes", limit: 3, ...(cursor !== undefined ? { cursor } : {}) })
          seen.push(...page.hits.map((h) => h.memory_item_id))
          cursor = page.next_cursor
        } while (cursor !== undefined)
        expect(seen).toEqual(order)
        // a forgotten item leaves the index
        yield* memory.delete(title.memory_item_id)
        expect((yield* memory.search({ query: "upgrade" })).hits).toEqual([])
      })))
  })
}

