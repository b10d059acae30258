/**
 * The work board on every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): every transition of the state machine and
 * the refusals with their details, the WIP limit under concurrent requests
 * (exactly one wins the last slot), depends_on links (cycle and cross-scope
 * refusal), artifacts, decisions (audited), signals (time signals fire at
 * their time on the TestClock; event signals by update), state_kv, events
 * and scope isolation.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Duration, Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { type WorkItemStatus } from "../../../services/work/schema.ts"
import { TRANSITIONS } from "../../../services/work/transitions.ts"
import { Work, WORK_CHAIN } from "../../../services/work/Work.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { fakeConnection } from "../../support/connections.ts"
import { testDatabases } from "../../support/databases.ts"
import { otherScope, scope, workLayer } from "./support.ts"

/** The failure of `effect` (which must fail), as a plain object. */
const failure = <A, E>(effect: Effect.Effect<A, E>) =>
  Effect.map(Effect.flip(effect), (e) => e as unknown as { _tag: string; message: string; details?: unknown })

/** Polls real time (5 ms steps, up to 10 s) until `check` holds; the TestClock does not move. */
const settle = (check: () => boolean) =>
  Effect.gen(function*() {
    const deadline = Date.now() + 10_000
    while (!check() && Date.now() < deadline) yield* TestClock.withLive(Effect.sleep(Duration.millis(5)))
    expect(check()).toBe(true)
  })

const STATES: ReadonlyArray<WorkItemStatus> = ["backlog", "ready", "doing", "blocked", "done", "failed", "cancelled"]

/** The path of moves from backlog to `status`. */
const PATH: Record<WorkItemStatus, ReadonlyArray<WorkItemStatus>> = {
  backlog: [],
  ready: ["ready"],
  doing: ["ready", "doing"],
  blocked: ["ready", "doing", "blocked"],
  done: ["ready", "doing", "done"],
  failed: ["ready", "doing", "failed"],
  cancelled: ["ready", "cancelled"]
}

for (const db of testDatabases) {
  describe(`Work on ${db.name}`, () => {
    const provide = <A, E>(effect: Effect.Effect<A, E, any>) =>
      effect.pipe(Effect.provide(workLayer(db))) as Effect.Effect<A, E>

    const newItem = (title: string, s: typeof scope | typeof otherScope = scope) =>
      Effect.gen(function*() {
        const work = yield* Work
        return (yield* work.create({ ...s, item: { kind: "action", title } }, "test")).item
      })

    const moveTo = (id: string, status: WorkItemStatus) =>
      Effect.gen(function*() {
        const work = yield* Work
        for (const next of PATH[status]) yield* work.transition({ ...scope, work_item_id: id, status: next })
      })

    it.effect("creates, gets, lists and updates items; another scope sees none of them", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const a = yield* newItem("first")
        expect(a).toMatchObject({ ...scope, kind: "action", title: "first", status: "backlog", priority: 0, created_from_session_key: "test" })
        expect((yield* work.get({ ...scope, work_item_id: a.work_item_id })).item).toEqual(a)
        const updated = yield* work.update({ ...scope, work_item_id: a.work_item_id, patch: { title: "renamed", priority: 4, acceptance: { tests: true } } })
        expect(updated.item).toMatchObject({ title: "renamed", priority: 4, acceptance: { tests: true } })
        expect(updated.item.updated_at).toBeDefined()
        expect((yield* failure(work.get({ ...otherScope, work_item_id: a.work_item_id })))).toMatchObject({ _tag: "NotFound", message: "work item not found" })
        for (let i = 0; i < 4; i++) yield* newItem(`item ${i}`)
        const page1 = yield* work.list({ ...scope, limit: 2 })
        expect(page1.items).toHaveLength(2)
        const page2 = yield* work.list({ ...scope, limit: 2, cursor: page1.next_cursor! })
        const page3 = yield* work.list({ ...scope, limit: 2, cursor: page2.next_cursor! })
        expect([...page1.items, ...page2.items, ...page3.items].map((i) => i.title).sort()).toEqual(["item 0", "item 1", "item 2", "item 3", "renamed"])
        expect(page3.next_cursor).toBeUndefined()
        expect((yield* work.list({ ...scope, limit: 0 })).items).toHaveLength(1) // clamped to 1
        expect((yield* work.list({ ...otherScope })).items).toEqual([])
        expect(yield* failure(work.list({ ...scope, cursor: "bm90LWEtY3Vyc29y" }))).toMatchObject({ _tag: "InvalidRequest", message: "invalid cursor" })
        expect((yield* work.list({ ...scope, statuses: ["doing"] })).items).toEqual([])
      })))

    it.effect("allows exactly the transitions of the state machine; refusals carry {code, from, to, allowed}", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        for (const from of STATES) {
          for (const to of STATES) {
            const item = yield* newItem(`${from}->${to}`)
            yield* moveTo(item.work_item_id, from)
            // Keep the WIP limit out of this test: nothing else stays in doing.
            const exit = yield* Effect.exit(work.transition({ ...scope, work_item_id: item.work_item_id, status: to }))
            if (TRANSITIONS[from].includes(to)) {
              expect(Exit.isSuccess(exit), `${from} -> ${to}`).toBe(true)
            } else {
              const error = yield* failure(Effect.flatten(Effect.succeed(exit) as any) as Effect.Effect<unknown, unknown>)
              expect(error, `${from} -> ${to}`).toMatchObject({
                _tag: "InvalidTransition",
                details: { code: "invalid_transition", from, to, allowed: TRANSITIONS[from] }
              })
            }
            // Leave doing so that the next round has its WIP slots.
            const now = (yield* work.get({ ...scope, work_item_id: item.work_item_id })).item.status
            if (now === "doing" || now === "blocked") yield* work.transition({ ...scope, work_item_id: item.work_item_id, status: "cancelled" })
          }
        }
        expect(TRANSITIONS).toEqual({
          backlog: ["ready"],
          ready: ["doing", "cancelled"],
          doing: ["blocked", "done", "failed", "cancelled"],
          blocked: ["doing", "cancelled"],
          done: [],
          failed: [],
          cancelled: []
        })
      })), 60_000)

    it.effect("limits doing to 2 per scope with {code, from, to, limit, current}; other scopes have their own", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const [a, b, c] = [yield* newItem("a"), yield* newItem("b"), yield* newItem("c")]
        yield* moveTo(a.work_item_id, "doing")
        yield* moveTo(b.work_item_id, "doing")
        yield* moveTo(c.work_item_id, "ready")
        expect(yield* failure(work.transition({ ...scope, work_item_id: c.work_item_id, status: "doing" }))).toMatchObject({
          _tag: "WipLimitExceeded",
          details: { code: "wip_limit_exceeded", from: "ready", to: "doing", limit: 2, current: 2 }
        })
        // blocked does not hold a slot; coming back from blocked needs one
        yield* work.transition({ ...scope, work_item_id: a.work_item_id, status: "blocked" })
        yield* work.transition({ ...scope, work_item_id: c.work_item_id, status: "doing" })
        expect(yield* failure(work.transition({ ...scope, work_item_id: a.work_item_id, status: "doing" }))).toMatchObject({
          details: { code: "wip_limit_exceeded", from: "blocked", to: "doing", limit: 2, current: 2 }
        })
        const elsewhere = yield* newItem("elsewhere", otherScope)
        yield* work.transition({ ...otherScope, work_item_id: elsewhere.work_item_id, status: "ready" })
        expect((yield* work.transition({ ...otherScope, work_item_id: elsewhere.work_item_id, status: "doing" })).item.status).toBe("doing")
      })))

    it.effect("under concurrent requests exactly one wins the last doing slot", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const holder = yield* newItem("holder")
        yield* moveTo(holder.work_item_id, "doing")
        const racers = yield* Effect.forEach(Array.from({ length: 12 }, (_, i) => i), (i) =>
          Effect.tap(newItem(`racer ${i}`), (item) => moveTo(item.work_item_id, "ready")))
        const exits = yield* Effect.forEach(racers, (item) =>
          Effect.exit(work.transition({ ...scope, work_item_id: item.work_item_id, status: "doing" })), { concurrency: "unbounded" })
        expect(exits.filter(Exit.isSuccess)).toHaveLength(1)
        const losers = exits.filter(Exit.isFailure)
        expect(losers).toHaveLength(11)
        for (const exit of losers) {
          expect(JSON.stringify(exit.cause)).toContain("wip_limit_exceeded")
        }
        expect((yield* work.list({ ...scope, statuses: ["doing"] })).items).toHaveLength(2)
      })), 60_000)

    it.effect("two slots, many racers from zero: exactly two win", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const racers = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (i) =>
          Effect.tap(newItem(`racer ${i}`), (item) => moveTo(item.work_item_id, "ready")))
        const exits = yield* Effect.forEach(racers, (item) =>
          Effect.exit(work.transition({ ...scope, work_item_id: item.work_item_id, status: "doing" })), { concurrency: "unbounded" })
        expect(exits.filter(Exit.isSuccess)).toHaveLength(2)
        expect((yield* work.list({ ...scope, statuses: ["doing"] })).items).toHaveLength(2)
      })), 60_000)

    it.effect("links depends_on within a scope; refuses cycles, self links and other scopes", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const [a, b, c] = [yield* newItem("a"), yield* newItem("b"), yield* newItem("c")]
        const link = (from: string, to: string, s: typeof scope | typeof otherScope = scope) =>
          work.linkCreate({ ...s, work_item_id: from, linked_work_item_id: to, kind: "depends_on" })
        expect((yield* link(a.work_item_id, b.work_item_id)).link).toMatchObject({ ...scope, work_item_id: a.work_item_id, linked_work_item_id: b.work_item_id, kind: "depends_on" })
        yield* link(b.work_item_id, c.work_item_id)
        expect(yield* failure(link(c.work_item_id, a.work_item_id))).toMatchObject({ _tag: "InvalidRequest", message: expect.stringContaining("cycle") })
        expect(yield* failure(link(b.work_item_id, a.work_item_id))).toMatchObject({ _tag: "InvalidRequest", message: expect.stringContaining("cycle") })
        expect(yield* failure(link(a.work_item_id, a.work_item_id))).toMatchObject({ _tag: "InvalidRequest" })
        const foreign = yield* newItem("foreign", otherScope)
        expect(yield* failure(link(a.work_item_id, foreign.work_item_id))).toMatchObject({ _tag: "InvalidRequest", message: expect.stringContaining("different scopes") })
        yield* link(a.work_item_id, c.work_item_id) // a diamond is not a cycle
        const links = (yield* work.linkList({ ...scope, work_item_id: b.work_item_id })).links
        expect(links.map((l) => [l.work_item_id, l.linked_work_item_id])).toEqual(expect.arrayContaining([
          [a.work_item_id, b.work_item_id],
          [b.work_item_id, c.work_item_id]
        ]))
        expect(links).toHaveLength(2)
      })))

    it.effect("records artifacts and decisions (decisions join the gateway.work audit chain)", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const item = yield* newItem("with records")
        const { artifact } = yield* work.artifactCreate({ ...scope, artifact: { work_item_id: item.work_item_id, kind: "risk", title: "Key leak", body_md: "**care**", refs: ["https://example.com"] } })
        expect(artifact).toMatchObject({ ...scope, work_item_id: item.work_item_id, kind: "risk", title: "Key leak", refs: ["https://example.com"] })
        yield* work.artifactCreate({ ...scope, artifact: { kind: "hypothesis", title: "board-level", refs: [] } })
        expect((yield* work.artifactGet({ ...scope, artifact_id: artifact.artifact_id })).artifact).toEqual(artifact)
        expect(yield* failure(work.artifactGet({ ...otherScope, artifact_id: artifact.artifact_id }))).toMatchObject({ _tag: "NotFound" })
        expect((yield* work.artifactList({ ...scope, work_item_id: item.work_item_id })).artifacts).toEqual([artifact])
        const first = yield* work.artifactList({ ...scope, limit: 1 })
        expect(first.artifacts).toHaveLength(1)
        expect((yield* work.artifactList({ ...scope, limit: 1, cursor: first.next_cursor! })).artifacts).toHaveLength(1)
        const { decision } = yield* work.decisionCreate({
          ...scope,
          decision: { work_item_id: item.work_item_id, question: "Rotate?", chosen: "yes", alternatives: ["no"], rationale_md: "safer", input_artifact_ids: [artifact.artifact_id] }
        })
        expect(decision).toMatchObject({ question: "Rotate?", chosen: "yes", alternatives: ["no"], input_artifact_ids: [artifact.artifact_id] })
        expect((yield* work.decisionGet({ ...scope, decision_id: decision.decision_id })).decision).toEqual(decision)
        expect((yield* work.decisionList({ ...scope, work_item_id: item.work_item_id })).decisions).toEqual([decision])
        expect((yield* work.decisionList({ ...otherScope })).decisions).toEqual([])
        const audit = yield* AuditLog
        const chain = yield* audit.events(WORK_CHAIN)
        expect(audit.verify(chain).valid).toBe(true)
        expect(chain.map((e) => (e.action as { type: string }).type)).toEqual(["work.item.created", "work.decision.created"])
      })))

    it.effect("fires a time signal at its time (TestClock) and event signals by update", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const reader = fakeConnection({ id: "reader" })
        yield* (yield* ConnectionRegistry).add(reader.handle)
        const at = new Date((yield* Clock.currentTimeMillis) + 60_000).toISOString()
        const { signal } = yield* work.signalCreate({ ...scope, signal: { trigger_kind: "time", trigger_spec_json: { at }, payload_json: { wake: true } } })
        expect(signal).toMatchObject({ status: "active", trigger_kind: "time", trigger_spec_json: { at }, payload_json: { wake: true } })
        yield* TestClock.adjust(Duration.seconds(30))
        yield* TestClock.withLive(Effect.sleep(Duration.millis(50)))
        expect((yield* work.signalGet({ ...scope, signal_id: signal.signal_id })).signal.status).toBe("active")
        yield* TestClock.adjust(Duration.seconds(31))
        yield* settle(() => reader.events("work.signal.fired").length === 1)
        const fired = (yield* work.signalGet({ ...scope, signal_id: signal.signal_id })).signal
        expect(fired).toMatchObject({ status: "fired", fired_at: at })
        expect(reader.events("work.signal.fired")[0].payload.signal.signal_id).toBe(signal.signal_id)

        expect(yield* failure(work.signalCreate({ ...scope, signal: { trigger_kind: "time", trigger_spec_json: { at: "tomorrow" } } }))).toMatchObject({ _tag: "InvalidRequest" })
        const event = (yield* work.signalCreate({ ...scope, signal: { trigger_kind: "event", trigger_spec_json: { on: "deploy" } } })).signal
        const paused = (yield* work.signalUpdate({ ...scope, signal_id: event.signal_id, patch: { status: "paused" } })).signal
        expect(paused.status).toBe("paused")
        const firedEvent = (yield* work.signalUpdate({ ...scope, signal_id: event.signal_id, patch: { status: "fired", payload_json: { n: 1 } } })).signal
        expect(firedEvent).toMatchObject({ status: "fired", payload_json: { n: 1 } })
        yield* settle(() => reader.events("work.signal.fired").length === 2)
        expect(yield* failure(work.signalUpdate({ ...scope, signal_id: event.signal_id, patch: { status: "active" } }))).toMatchObject({ _tag: "InvalidRequest" })
        expect((yield* work.signalList({ ...scope })).signals).toHaveLength(2)
        expect((yield* work.signalList({ ...otherScope })).signals).toHaveLength(0)
      })))

    it.effect("keeps state_kv per agent and per work item: get (null when absent), list by prefix, set", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const item = yield* newItem("kv")
        const agent = { kind: "agent" } as const
        const itemScope = { kind: "work_item", work_item_id: item.work_item_id } as const
        expect((yield* work.kvGet({ ...scope, scope: agent, key: "cursor" })).entry).toBeNull()
        const { entry } = yield* work.kvSet({ ...scope, scope: agent, key: "cursor", value_json: { page: 1 } })
        expect(entry).toMatchObject({ ...scope, scope: agent, key: "cursor", value_json: { page: 1 } })
        yield* work.kvSet({ ...scope, scope: agent, key: "cursor", value_json: { page: 2 } })
        yield* work.kvSet({ ...scope, scope: agent, key: "cut", value_json: "x" })
        yield* work.kvSet({ ...scope, scope: agent, key: "other", value_json: 3 })
        yield* work.kvSet({ ...scope, scope: itemScope, key: "cursor", value_json: null })
        expect((yield* work.kvGet({ ...scope, scope: agent, key: "cursor" })).entry?.value_json).toEqual({ page: 2 })
        expect((yield* work.kvList({ ...scope, scope: agent, prefix: "cu" })).entries.map((e) => e.key)).toEqual(["cursor", "cut"])
        expect((yield* work.kvList({ ...scope, scope: agent })).entries).toHaveLength(3)
        expect((yield* work.kvList({ ...scope, scope: itemScope })).entries.map((e) => [e.key, e.value_json])).toEqual([["cursor", null]])
        expect((yield* work.kvGet({ ...otherScope, scope: agent, key: "cursor" })).entry).toBeNull()
        expect(yield* failure(work.kvSet({ ...otherScope, scope: itemScope, key: "k", value_json: 1 }))).toMatchObject({ _tag: "NotFound" })
      })))

    it.effect("announces item events by the state entered to operator readers and writers", () =>
      provide(Effect.gen(function*() {
        const work = yield* Work
        const registry = yield* ConnectionRegistry
        const reader = fakeConnection({ id: "r" })
        yield* registry.add(reader.handle)
        const item = yield* newItem("evented")
        yield* moveTo(item.work_item_id, "blocked")
        yield* work.transition({ ...scope, work_item_id: item.work_item_id, status: "cancelled" })
        yield* settle(() => reader.events("work.item.cancelled").length === 1)
        expect(reader.events("work.item.created")).toHaveLength(1)
        expect(reader.events("work.item.updated")).toHaveLength(2) // ready, doing
        expect(reader.events("work.item.blocked")).toHaveLength(1)
        expect(reader.events("work.item.cancelled")[0].scope).toEqual({ kind: "work", ...scope })
      })))
  })
}
