/**
 * The audit chain on every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): appends build one verified chain per plan,
 * joining the caller's transaction; anonymize, delete and retain each
 * append a proof (naming who asked; never on a gateway security chain); an
 * export verifies against the chain's head and catches an event deleted or
 * an action nulled behind the gateway's back; concurrent appends (fibers, and on PostgreSQL two
 * separate clients) give a gap-free valid chain; the planner's old records
 * move into the chain once; `Decision` domain events are appended in their
 * publisher's transaction.
 */
import { describe, expect, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { migrate } from "../../../layers/storage/migrations.ts"
import * as PgClient from "../../../layers/storage/PgClient.ts"
import { storageLayer } from "../../../layers/storage/Storage.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Decision } from "../../../services/domain-events/decisions.ts"
import { DomainEvents } from "../../../services/domain-events/DomainEvents.ts"
import { eventHash } from "../../../services/audit/hash.ts"
import { REDACTED } from "../../../services/audit/redact.ts"
import { plannerMigrations } from "../../../services/planner/migrations/index.ts"
import { sha256Hex } from "../../../services/shared/sha256.ts"
import { postgresUrl, testDatabases } from "../../support/databases.ts"

const VALID = { valid: true, broken_at_index: null, broken_at_id: null }
const ADMIN = { kind: "admin" } as const

for (const db of testDatabases) {
  layer(AuditLog.layer.pipe(Layer.provideMerge(db.make())))(`AuditLog on ${db.name}`, (it) => {
    it.effect("appends one linked chain per plan, redacted, that exports and verifies", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        const first = yield* audit.append("plan-a", { type: "plan.created", token: "svc-device.v1.secret", n: 1 })
        yield* audit.append("plan-b", { type: "plan.created" })
        const second = yield* audit.append("plan-a", { type: "approval.approved", headers: { authorization: "Bearer x" } })
        expect(first).toMatchObject({ plan_id: "plan-a", step_index: 0, prev_hash: null, action: { type: "plan.created", token: REDACTED, n: 1 } })
        expect(second).toMatchObject({ step_index: 1, prev_hash: first.event_hash })
        const bundle = yield* audit.exportChain("plan-a")
        expect(bundle.plan_id).toBe("plan-a")
        expect(bundle.events).toEqual([first, second])
        expect(bundle.chain_verification).toEqual({ ...VALID, checked_count: 2 })
        expect(JSON.stringify(bundle)).not.toContain("svc-device.v1.secret")
        expect((yield* audit.exportChain("plan-b")).events.map((e) => e.step_index)).toEqual([0])
        const missing = yield* Effect.flip(audit.exportChain("plan-none"))
        expect(missing._tag).toBe("NotFound")
      }))

    it.effect("joins the caller's transaction: a rolled-back decision leaves no event and no gap", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        yield* audit.append("plan-tx", { type: "one" })
        const failed = yield* Effect.flip(audit.transaction(Effect.gen(function*() {
          yield* audit.append("plan-tx", { type: "rolled.back" })
          return yield* Effect.fail("boom" as const)
        })))
        expect(failed).toBe("boom")
        yield* audit.transaction(Effect.gen(function*() {
          yield* audit.append("plan-tx", { type: "two" })
          yield* audit.append("plan-tx", { type: "three" })
        }))
        const events = yield* audit.events("plan-tx")
        expect(events.map((e) => [e.step_index, (e.action as { type: string }).type])).toEqual([[0, "one"], [1, "two"], [2, "three"]])
        expect(audit.verify(events).valid).toBe(true)
      }))

    it.effect("subscribes to Decision domain events in the publisher's transaction: all or nothing with the write", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        const events = yield* DomainEvents
        const sql = yield* SqlClient.SqlClient
        yield* events.publish(Decision, { chain: "plan-decided", action: { type: "alone", token: "svc-device.v1.secret" } })
        const failed = yield* Effect.flip(sql.withTransaction(Effect.gen(function*() {
          yield* events.publish(Decision, { chain: "plan-decided", action: { type: "rolled.back" } })
          return yield* Effect.fail("boom" as const)
        })))
        expect(failed).toBe("boom")
        yield* sql.withTransaction(events.publish(Decision, { chain: "plan-decided", action: { type: "committed" } }))
        const recorded = yield* audit.events("plan-decided")
        expect(recorded.map((e) => [e.step_index, e.action])).toEqual([[0, { type: "alone", token: REDACTED }], [1, { type: "committed" }]])
        expect(audit.verify(recorded).valid).toBe(true)
      }))

    it.effect("anonymize erases the actions, keeps the digests and proofs; the chain still verifies", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        for (const type of ["a", "b", "c"]) yield* audit.append("plan-anon", { type, personal: "Jane Doe" })
        const before = yield* audit.events("plan-anon")
        const result = yield* audit.forget({ confirm: "FORGET", entity_type: "plan", entity_id: "plan-anon", decision: "anonymize" }, ADMIN)
        expect(result.decision).toBe("anonymize")
        expect(result.deleted_count).toBe(3)
        const bundle = yield* audit.exportChain("plan-anon")
        expect(bundle.events.slice(0, 3).map((e) => e.action)).toEqual([null, null, null])
        expect(bundle.events.slice(0, 3).map((e) => e.action_sha256)).toEqual(before.map((e) => e.action_sha256))
        expect(bundle.events[3]).toMatchObject({
          id: result.proof_event_id,
          step_index: 3,
          prev_hash: before[2].event_hash,
          action: { type: "forget.proof", decision: "anonymize", entity_type: "plan", entity_id: "plan-anon", deleted_count: 3, actor: ADMIN }
        })
        expect(bundle.chain_verification).toEqual({ ...VALID, checked_count: 4 })
        expect(JSON.stringify(bundle)).not.toContain("Jane Doe")
        // Again: nothing left to erase, the first proof is kept.
        const again = yield* audit.forget({ confirm: "FORGET", entity_type: "plan", entity_id: "plan-anon", decision: "anonymize" }, ADMIN)
        expect(again.deleted_count).toBe(0)
        const events = yield* audit.events("plan-anon")
        expect(events[3].action).toMatchObject({ type: "forget.proof" })
        expect(audit.verify(events).valid).toBe(true)
      }))

    it.effect("delete removes the events; the proof continues from the last hash and the chain goes on", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        for (const type of ["a", "b"]) yield* audit.append("plan-del", { type })
        const last = (yield* audit.events("plan-del"))[1]
        const result = yield* audit.forget({ confirm: "FORGET", entity_type: "plan", entity_id: "plan-del", decision: "delete" }, ADMIN)
        expect(result.deleted_count).toBe(2)
        yield* audit.append("plan-del", { type: "after" })
        const bundle = yield* audit.exportChain("plan-del")
        expect(bundle.events.map((e) => [e.id, e.step_index, e.prev_hash])).toEqual([
          [result.proof_event_id, 2, last.event_hash],
          [expect.any(Number), 3, bundle.events[0].event_hash]
        ])
        expect(bundle.events[0].action).toEqual({ type: "forget.proof", decision: "delete", entity_type: "plan", entity_id: "plan-del", deleted_count: 2, actor: ADMIN })
        expect(bundle.chain_verification).toEqual({ ...VALID, checked_count: 2 })
      }))

    it.effect("retain changes nothing but the proof; an unknown chain gets its proof as first event", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        yield* audit.append("plan-keep", { type: "a" })
        const kept = yield* audit.forget({ confirm: "FORGET", entity_type: "plan", entity_id: "plan-keep", decision: "retain" }, ADMIN)
        expect(kept.deleted_count).toBe(0)
        const events = yield* audit.events("plan-keep")
        expect(events.map((e) => (e.action as { type: string }).type)).toEqual(["a", "forget.proof"])
        const unknown = yield* audit.forget({ confirm: "FORGET", entity_type: "plan", entity_id: "plan-never", decision: "delete" }, ADMIN)
        expect(unknown.deleted_count).toBe(0)
        const bundle = yield* audit.exportChain("plan-never")
        expect(bundle.events).toHaveLength(1)
        expect(bundle.events[0]).toMatchObject({ id: unknown.proof_event_id, step_index: 0, prev_hash: null })
        expect(bundle.chain_verification.valid).toBe(true)
      }))

    it.effect("a gateway security chain cannot be forgotten: InvalidRequest, no event deleted, erased or appended", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        yield* audit.append("gateway.auth", { type: "auth.failed", reason: "invalid_token", client_address: "203.0.113.1" })
        yield* audit.append("gateway.device_tokens", { type: "device_token.issued", token_id: "t-1" })
        const before = [yield* audit.events("gateway.auth"), yield* audit.events("gateway.device_tokens")]
        for (const chain of ["gateway.auth", "gateway.device_tokens", "gateway.never-used"]) {
          for (const decision of ["delete", "anonymize", "retain"] as const) {
            const refused = yield* Effect.flip(audit.forget({ confirm: "FORGET", entity_type: "chain", entity_id: chain, decision }, ADMIN))
            expect(refused._tag).toBe("InvalidRequest")
            expect(refused.message).toBe(`entity_id: '${chain}' is a gateway security chain (gateway.*); security chains cannot be forgotten`)
          }
        }
        expect([yield* audit.events("gateway.auth"), yield* audit.events("gateway.device_tokens")]).toEqual(before)
        expect(yield* audit.events("gateway.never-used")).toEqual([])
      }))

    it.effect("the proof records who asked: a device token's device and token ids, or the admin", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        yield* audit.append("plan-actor", { type: "a" })
        const device = { kind: "device", device_id: "dev-ops", token_id: "tok-1" } as const
        const result = yield* audit.forget({ confirm: "FORGET", entity_type: "plan", entity_id: "plan-actor", decision: "retain" }, device)
        const proof = (yield* audit.events("plan-actor")).find((e) => e.id === result.proof_event_id)
        expect(proof?.action).toEqual({
          type: "forget.proof",
          decision: "retain",
          entity_type: "plan",
          entity_id: "plan-actor",
          deleted_count: 0,
          actor: device
        })
      }))

    it.effect("the export verifies against the chain's head: the newest event deleted with SQL, or every event, is invalid", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        const sql = yield* SqlClient.SqlClient
        for (const type of ["a", "b", "c"]) yield* audit.append("plan-head", { type })
        const events = yield* audit.events("plan-head")
        expect((yield* audit.exportChain("plan-head")).chain_verification).toEqual({ ...VALID, checked_count: 3 })
        yield* sql`DELETE FROM audit_events WHERE id = ${events[2].id}`
        expect((yield* audit.exportChain("plan-head")).chain_verification).toEqual({
          valid: false,
          checked_count: 2,
          broken_at_index: 2,
          broken_at_id: null
        })
        // Every event gone while the head remains: an invalid, empty export rather than a 404.
        yield* sql`DELETE FROM audit_events WHERE plan_id = ${"plan-head"}`
        const emptied = yield* audit.exportChain("plan-head")
        expect(emptied.events).toEqual([])
        expect(emptied.chain_verification).toEqual({ valid: false, checked_count: 0, broken_at_index: 0, broken_at_id: null })
      }))

    it.effect("an action nulled with SQL, without a forget.proof, makes the export invalid at that event", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        const sql = yield* SqlClient.SqlClient
        for (const type of ["a", "b", "c"]) yield* audit.append("plan-null", { type })
        const events = yield* audit.events("plan-null")
        yield* sql`UPDATE audit_events SET action = NULL WHERE id = ${events[1].id}`
        expect((yield* audit.exportChain("plan-null")).chain_verification).toEqual({
          valid: false,
          checked_count: 2,
          broken_at_index: 1,
          broken_at_id: events[1].id
        })
        // The gateway's own anonymize only erases what is left and covers that; the forged null stays uncovered.
        yield* audit.forget({ confirm: "FORGET", entity_type: "plan", entity_id: "plan-null", decision: "anonymize" }, ADMIN)
        const after = yield* audit.exportChain("plan-null")
        expect(after.chain_verification).toMatchObject({ valid: false, broken_at_index: 3 })
      }))

    it.effect("a row stored before issue 21 (array-index names first) still exports as valid, and the chain goes on", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        const sql = yield* SqlClient.SqlClient
        const first = yield* audit.append("plan-legacy", { type: "x", args: { "10": "a", "9": "b" } })
        // The row as a gateway before issue 21 wrote it: its text and digest with "9" before "10".
        const text = '{"args":{"9":"b","10":"a"},"type":"x"}'
        const action_sha256 = sha256Hex(text)
        const event_hash = eventHash({ ...first, action_sha256 })
        yield* sql`UPDATE audit_events SET action = ${text}, action_sha256 = ${action_sha256}, event_hash = ${event_hash} WHERE id = ${first.id}`
        yield* sql`UPDATE audit_chains SET last_hash = ${event_hash} WHERE plan_id = ${"plan-legacy"}`
        const second = yield* audit.append("plan-legacy", { type: "after" })
        expect(second.prev_hash).toBe(event_hash)
        expect((yield* audit.exportChain("plan-legacy")).chain_verification).toEqual({ ...VALID, checked_count: 2 })
        // Written now, the same action has its RFC 8785 digest ("10" before "9").
        expect(first.action_sha256).toBe(sha256Hex('{"args":{"10":"a","9":"b"},"type":"x"}'))
      }))

    it.effect("50 concurrent appends to one chain (and others interleaved) give a gap-free valid chain", () =>
      Effect.gen(function*() {
        const audit = yield* AuditLog
        yield* Effect.all(
          Array.from({ length: 50 }, (_, i) =>
            Effect.andThen(audit.append("plan-busy", { type: "n", i }), audit.append(`plan-side-${i % 5}`, { type: "side", i }))),
          { concurrency: "unbounded", discard: true }
        )
        const events = yield* audit.events("plan-busy")
        expect(events.map((e) => e.step_index)).toEqual(Array.from({ length: 50 }, (_, i) => i))
        expect(new Set(events.map((e) => e.prev_hash)).size).toBe(50)
        expect(audit.verify(events)).toEqual({ ...VALID, checked_count: 50 })
        expect((events.map((e) => (e.action as { i: number }).i)).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i))
        for (let k = 0; k < 5; k++) expect(audit.verify(yield* audit.events(`plan-side-${k}`))).toEqual({ ...VALID, checked_count: 10 })
      }))

    it.effect("moves the planner's old planner_events rows into their chains once", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* migrate("planner", plannerMigrations)
        const row = (plan_id: string, step_index: number, action: string) => ({
          replay_id: "r",
          plan_id,
          step_index,
          occurred_at: `2026-01-0${step_index === 0 ? 1 : 2}T00:00:00.000Z`,
          action,
          created_at: "2026-01-01T00:00:00.000Z"
        })
        yield* sql`INSERT INTO planner_events ${sql.insert(row("plan-old", 2_147_483_647, JSON.stringify({ type: "plan.created", b: 1, a: 2 })))}`
        yield* sql`INSERT INTO planner_events ${sql.insert(row("plan-old", 0, JSON.stringify({ type: "step" })))}`
        yield* sql`INSERT INTO planner_events ${sql.insert(row("plan-old-2", 0, "not json"))}`
        // A fresh AuditLog over the same database: what a restart after the upgrade does.
        const moved = yield* Effect.provide(Effect.service(AuditLog), Layer.fresh(AuditLog.layer))
        const events = yield* moved.events("plan-old")
        expect(events.map((e) => [e.step_index, e.occurred_at, e.action])).toEqual([
          [0, "2026-01-01T00:00:00.000Z", { type: "step" }],
          [1, "2026-01-02T00:00:00.000Z", { type: "plan.created", a: 2, b: 1 }]
        ])
        expect(moved.verify(events).valid).toBe(true)
        expect((yield* moved.events("plan-old-2")).map((e) => e.action)).toEqual(["not json"])
        expect(yield* sql`SELECT * FROM planner_events`).toEqual([])
        // Once: building it again moves nothing more.
        const again = yield* Effect.provide(Effect.service(AuditLog), Layer.fresh(AuditLog.layer))
        expect(yield* again.events("plan-old")).toHaveLength(2)
      }))
  })
}

if (postgresUrl !== undefined) {
  const url = postgresUrl
  describe("AuditLog on postgresql, two separate clients", () => {
    it.effect("25 + 25 concurrent appends from two connection pools give one gap-free valid chain", () =>
      Effect.gen(function*() {
        const schema = `svc_test_${randomBytes(6).toString("hex")}`
        const admin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
          Effect.flatMap(SqlClient.SqlClient, statement).pipe(Effect.provide(PgClient.layer({ url, maxConnections: 1 })))
        yield* Effect.acquireRelease(
          admin((sql) => sql`CREATE SCHEMA ${sql(schema)}`),
          () => Effect.orDie(admin((sql) => sql`DROP SCHEMA IF EXISTS ${sql(schema)} CASCADE`))
        )
        const client = () => AuditLog.layer.pipe(Layer.provide(storageLayer({ kind: "postgres", url, searchPath: schema })))
        const a = Context.get(yield* Layer.build(client()), AuditLog)
        const b = Context.get(yield* Layer.build(client()), AuditLog)
        yield* Effect.all(
          Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).append("plan-shared", { type: "n", i })),
          { concurrency: "unbounded", discard: true }
        )
        const events = yield* b.events("plan-shared")
        expect(events.map((e) => e.step_index)).toEqual(Array.from({ length: 50 }, (_, i) => i))
        expect(a.verify(events)).toEqual({ ...VALID, checked_count: 50 })
      }).pipe(Effect.scoped), 30_000)
  })
}
