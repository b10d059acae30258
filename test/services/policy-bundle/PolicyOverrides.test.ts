/**
 * PolicyOverrides against every test database (SQLite always, PostgreSQL
 * when SVC_TEST_DATABASE_URL is set): create, cursor pagination over several
 * pages, revoke, events after storage, and expiry by the background fiber at
 * the moment `expires_at` comes (TestClock; no wall-clock sleep).
 */
import { expect, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { PolicyOverrides } from "../../../services/policy-bundle/PolicyOverrides.ts"
import { testDatabases } from "../../support/databases.ts"
import { policyLayer, RecordedEvents } from "./support.ts"

const at = (ms: number) => new Date(ms).toISOString()

for (const db of testDatabases) {
  layer(policyLayer(db))(`PolicyOverrides on ${db.name}`, (it) => {
    it.effect("creates an active override, stores it and then publishes policy_override.created", () =>
      Effect.gen(function*() {
        const overrides = yield* PolicyOverrides
        const events = yield* RecordedEvents
        const override = yield* overrides.create({
          agent_id: " agent-a ",
          workspace_id: "ws-1",
          tool_id: "tool.exec",
          pattern: "git status*",
          created_by: { kind: "approval", approval_id: 7 },
          created_from_approval_id: 7
        })
        expect(override).toMatchObject({
          status: "active",
          agent_id: "agent-a",
          workspace_id: "ws-1",
          tool_id: "tool.exec",
          pattern: "git status*",
          created_by: { kind: "approval", approval_id: 7 },
          created_from_approval_id: 7,
          expires_at: null
        })
        expect(override.policy_override_id).toMatch(/^[0-9a-f-]{36}$/)
        expect(yield* overrides.get(override.policy_override_id)).toEqual(override)
        expect(yield* events.waitFor("policy_override.created", override.policy_override_id)).toEqual({ type: "policy_override.created", payload: { override } })
      }))

    it.effect("validates in-process input like the HTTP body and refuses a past expires_at", () =>
      Effect.gen(function*() {
        const overrides = yield* PolicyOverrides
        const base = { agent_id: "agent-a", tool_id: "tool.exec", pattern: "ls" }
        const cases: ReadonlyArray<readonly [Record<string, unknown>, RegExp]> = [
          [{ agent_id: "a:b" }, /^agent_id: expected an agent id without ':'/],
          [{ workspace_id: "Not_A_Label" }, /^workspace_id: expected a DNS label/],
          [{ pattern: "   " }, /^pattern: expected a non-empty pattern/],
          [{ expires_at: "tomorrow" }, /^expires_at: expected an ISO 8601 date-time/],
          [{ created_from_approval_id: 0 }, /^created_from_approval_id: expected an integer from 1/],
          [{ expires_at: at(0) }, /^expires_at: must be later than the current time/]
        ]
        for (const [patch, message] of cases) {
          const error = yield* Effect.flip(overrides.create({ ...base, ...patch } as never))
          expect(error._tag).toBe("InvalidRequest")
          expect(error.message).toMatch(message)
        }
      }))

    it.effect("pages newest first with a cursor, over more than one page, never repeating or skipping", () =>
      Effect.gen(function*() {
        const overrides = yield* PolicyOverrides
        const created: Array<string> = []
        for (let i = 0; i < 7; i++) {
          // Three share each timestamp: the id breaks ties.
          if (i % 3 === 0) yield* TestClock.adjust(Duration.seconds(1))
          created.push((yield* overrides.create({ agent_id: "pager", tool_id: `tool.${i % 2}`, pattern: `p${i}` })).policy_override_id)
        }
        const seen: Array<string> = []
        let cursor: string | undefined
        let pages = 0
        do {
          const page = yield* overrides.list({ agent_id: "pager", limit: 3, ...(cursor !== undefined ? { cursor } : {}) })
          expect(page.overrides.length).toBeLessThanOrEqual(3)
          seen.push(...page.overrides.map((o) => o.policy_override_id))
          cursor = page.next_cursor
          pages++
        } while (cursor !== undefined)
        expect(pages).toBe(3)
        expect([...seen].sort()).toEqual([...created].sort())
        const all = yield* overrides.list({ agent_id: "pager" })
        expect(all.next_cursor).toBeUndefined()
        expect(all.overrides.map((o) => o.policy_override_id)).toEqual(seen)
        const times = all.overrides.map((o) => o.created_at)
        expect([...times].sort().reverse()).toEqual(times)

        const tool1 = yield* overrides.list({ agent_id: "pager", tool_id: "tool.1", limit: 2 })
        expect(tool1.overrides.every((o) => o.tool_id === "tool.1")).toBe(true)
        expect(tool1.next_cursor).toBeDefined()
        const rest = yield* overrides.list({ agent_id: "pager", tool_id: "tool.1", limit: 2, cursor: tool1.next_cursor! })
        expect(rest.overrides.length).toBe(1)
        expect(rest.next_cursor).toBeUndefined()
      }))

    it.effect("refuses a cursor it did not issue", () =>
      Effect.gen(function*() {
        const overrides = yield* PolicyOverrides
        for (const cursor of ["nope!", Buffer.from("[1,2]").toString("base64url"), "e30"]) {
          const error = yield* Effect.flip(overrides.list({ cursor }))
          expect(error._tag).toBe("InvalidRequest")
          expect(error.message).toMatch(/^cursor: /)
        }
      }))

    it.effect("revokes an active override once, then publishes policy_override.revoked", () =>
      Effect.gen(function*() {
        const overrides = yield* PolicyOverrides
        const events = yield* RecordedEvents
        const created = yield* overrides.create({ agent_id: "revoker", tool_id: "tool.exec", pattern: "make test" })
        const revoked = yield* overrides.revoke({ policy_override_id: created.policy_override_id, reason: "too broad", revoked_by: { kind: "http" } })
        expect(revoked).toMatchObject({ status: "revoked", revoked_reason: "too broad", revoked_by: { kind: "http" } })
        expect(revoked.revoked_at).toMatch(/^\d{4}-\d{2}-\d{2}T/)
        expect(yield* events.waitFor("policy_override.revoked", created.policy_override_id)).toEqual({ type: "policy_override.revoked", payload: { override: revoked } })
        const again = yield* Effect.flip(overrides.revoke({ policy_override_id: created.policy_override_id }))
        expect(again).toMatchObject({ _tag: "NotFound", message: "override not found or not active" })
        const missing = yield* Effect.flip(overrides.revoke({ policy_override_id: crypto.randomUUID() }))
        expect(missing._tag).toBe("NotFound")
        expect((yield* overrides.list({ agent_id: "revoker", status: "revoked" })).overrides.map((o) => o.policy_override_id))
          .toEqual([created.policy_override_id])
        expect((yield* overrides.list({ agent_id: "revoker", status: "active" })).overrides).toEqual([])
        // Both changes are in the gateway.policy_overrides audit chain.
        const audit = yield* AuditLog
        const chain = (yield* audit.events("gateway.policy_overrides")).filter((e) =>
          (e.action as { policy_override_id: string }).policy_override_id === created.policy_override_id)
        expect(chain.map((e) => e.action)).toEqual([
          expect.objectContaining({ type: "policy_override.created", agent_id: "revoker", tool_id: "tool.exec", pattern: "make test" }),
          expect.objectContaining({ type: "policy_override.revoked", revoked_by: { kind: "http" }, revoked_reason: "too broad" })
        ])
        expect(audit.verify(yield* audit.events("gateway.policy_overrides")).valid).toBe(true)
      }))

    it.effect("expires an override in the background at the moment its expires_at comes (TestClock)", () =>
      Effect.gen(function*() {
        const overrides = yield* PolicyOverrides
        const events = yield* RecordedEvents
        const sql = yield* SqlClient.SqlClient
        const start = Date.parse((yield* overrides.create({ agent_id: "clock", tool_id: "t", pattern: "probe" })).created_at)
        const later = yield* overrides.create({ agent_id: "clock", tool_id: "t", pattern: "later", expires_at: at(start + 120_000) })
        const soon = yield* overrides.create({ agent_id: "clock", tool_id: "t", pattern: "soon", expires_at: at(start + 60_000) })
        const patterns = Effect.map(overrides.activeFor({ agent_id: "clock", tool_id: "t" }), (list) => list.map((o) => o.pattern).sort())
        expect(yield* patterns).toEqual(["later", "probe", "soon"])

        yield* TestClock.adjust(Duration.millis(59_999))
        const stored = yield* sql<{ status: string }>`SELECT status FROM policy_overrides WHERE policy_override_id = ${soon.policy_override_id}`
        expect(stored[0].status).toBe("active")

        yield* TestClock.adjust(Duration.millis(1))
        const expired = yield* events.waitFor("policy_override.expired", soon.policy_override_id)
        expect(expired.payload.override).toMatchObject({ policy_override_id: soon.policy_override_id, status: "expired", pattern: "soon" })
        expect((yield* overrides.get(soon.policy_override_id))?.status).toBe("expired")
        expect((yield* overrides.get(later.policy_override_id))?.status).toBe("active")
        expect(yield* patterns).toEqual(["later", "probe"])

        yield* TestClock.adjust(Duration.seconds(60))
        yield* events.waitFor("policy_override.expired", later.policy_override_id)
        expect((yield* overrides.list({ agent_id: "clock", status: "expired" })).overrides.map((o) => o.pattern).sort()).toEqual(["later", "soon"])
        expect(yield* overrides.revoke({ policy_override_id: later.policy_override_id }).pipe(Effect.flip)).toMatchObject({ _tag: "NotFound" })
        const expiredEvents = (yield* (yield* AuditLog).events("gateway.policy_overrides")).filter((e) =>
          (e.action as { type: string }).type === "policy_override.expired")
        expect(expiredEvents.map((e) => [(e.action as { pattern: string }).pattern, e.occurred_at])).toEqual([
          ["soon", at(start + 60_000)],
          ["later", at(start + 120_000)]
        ])
      }))

    it.effect("matches only the agent's active overrides for the tool in the workspace or in none", () =>
      Effect.gen(function*() {
        const overrides = yield* PolicyOverrides
        const make = (patch: Record<string, unknown>) =>
          overrides.create({ agent_id: "matcher", tool_id: "tool.exec", pattern: "x", ...patch } as never)
        const anywhere = yield* make({ pattern: "any" })
        const ws1 = yield* make({ pattern: "ws1", workspace_id: "ws-1" })
        yield* make({ pattern: "ws2", workspace_id: "ws-2" })
        yield* make({ pattern: "other-tool", tool_id: "tool.other" })
        yield* make({ pattern: "other-agent", agent_id: "someone" })
        const revoked = yield* make({ pattern: "revoked" })
        yield* overrides.revoke({ policy_override_id: revoked.policy_override_id })
        const ids = (workspace_id?: string) =>
          Effect.map(overrides.activeFor({ agent_id: "matcher", tool_id: "tool.exec", workspace_id }), (list) => list.map((o) => o.policy_override_id).sort())
        expect(yield* ids("ws-1")).toEqual([anywhere.policy_override_id, ws1.policy_override_id].sort())
        expect(yield* ids(undefined)).toEqual([anywhere.policy_override_id])
      }))
  })
}
