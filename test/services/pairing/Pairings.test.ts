/**
 * The pairing service on every test database (SQLite always, PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): creation on connect, refresh, reopening a
 * denied or revoked node, every transition and its 404, one winner among
 * concurrent approvals, the scoped token (digest only, delivered only to the
 * node's own connections, resolved back to its principal, dead once revoked),
 * the connections closed on deny and revoke, and the events' audience.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { adminPrincipal } from "../../../services/auth/principal.ts"
import { tokenDigest } from "../../../services/auth/tokenCrypto.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Pairings } from "../../../services/pairing/Pairings.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { testDatabases } from "../../support/databases.ts"
import { connected, device, fakeConnection, pairingsLayer } from "./support.ts"

const HTTP = { kind: "http", principal: "admin" } as const
const TERMS = { trust_level: "local", capability_allowlist: [{ id: "cli.exec", version: "1.0.0" }] } as const

for (const db of testDatabases) {
  describe(`Pairings on ${db.name}`, () => {
    const provide = <A, E>(effect: Effect.Effect<A, E, any>) => effect.pipe(Effect.provide(pairingsLayer(db))) as Effect.Effect<A, E>

    it.effect("a node's first connect creates a pending pairing, announced to operator.pairing clients only; a reconnect refreshes it", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const admin = fakeConnection("admin", "dev_admin", adminPrincipal)
        const operator = fakeConnection("operator", "dev_op", device("dev_op", ["operator.pairing"]))
        const reader = fakeConnection("reader", "dev_reader", device("dev_reader", ["operator.read", "operator.approvals"]))
        const otherNode = fakeConnection("other", "dev_other", adminPrincipal, "node")
        for (const c of [admin, operator, reader, otherNode]) yield* registry.add(c.handle)
        const pairings = yield* Pairings

        const pairing = yield* pairings.nodeConnected(connected("dev_n1"))
        expect(pairing).toEqual({
          pairing_id: 1,
          status: "pending",
          trust_level: null,
          requested_at: "1970-01-01T00:00:00.000Z",
          node: {
            node_id: "dev_n1",
            label: "node dev_n1",
            capabilities: [{ id: "cli.exec", version: "1.0.0" }],
            last_seen_at: "1970-01-01T00:00:00.000Z",
            metadata: { platform: "linux", version: "0.1.0", mode: "node", ip: "127.0.0.1" }
          },
          capability_allowlist: [],
          resolution: null,
          resolved_at: null
        })
        for (const c of [admin, operator]) {
          expect(c.events("pairing.requested")).toEqual([
            expect.objectContaining({ payload: { pairing }, scope: { kind: "node", node_id: "dev_n1" } })
          ])
        }
        expect(reader.received).toEqual([])
        expect(otherNode.received).toEqual([])

        yield* TestClock.adjust(Duration.seconds(30))
        const refreshed = yield* pairings.nodeConnected(connected("dev_n1", { label: undefined, capabilities: [], metadata: { ip: "10.0.0.2" } }))
        expect(refreshed).toEqual({
          ...pairing,
          node: { node_id: "dev_n1", capabilities: [], last_seen_at: "1970-01-01T00:00:30.000Z", metadata: { ip: "10.0.0.2" } }
        })
        const bare = yield* pairings.nodeConnected({ node_id: "dev_n1", capabilities: [] })
        expect(bare?.node).toEqual({ node_id: "dev_n1", capabilities: [], last_seen_at: "1970-01-01T00:00:30.000Z" })
        expect(admin.events("pairing.requested")).toHaveLength(1) // a refresh is not announced
        expect(yield* pairings.findByNode("dev_n1")).toEqual(bare)
        expect(yield* pairings.findByNode("dev_unknown")).toBeUndefined()
        expect(yield* pairings.get(1)).toEqual(bare)
        expect((yield* Effect.flip(pairings.get(2))).message).toBe("pairing 2 not found")
      })))

    it.effect("approve: one conditional write; the token goes only to the node's own connections and only its digest is stored", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const sql = yield* SqlClient.SqlClient
        const pairings = yield* Pairings
        const operator = fakeConnection("operator", "dev_op", device("dev_op", ["operator.pairing"]))
        const node = fakeConnection("n1-a", "dev_n1", device("dev_n1", [], "node"), "node")
        const nodeAgain = fakeConnection("n1-b", "dev_n1", adminPrincipal, "node")
        const sameDeviceAsClient = fakeConnection("n1-client", "dev_n1", adminPrincipal, "client")
        const otherNode = fakeConnection("n2", "dev_n2", adminPrincipal, "node")
        for (const c of [operator, node, nodeAgain, sameDeviceAsClient, otherNode]) yield* registry.add(c.handle)
        const pending = yield* pairings.nodeConnected(connected("dev_n1"))
        yield* TestClock.adjust(Duration.seconds(5))

        const approved = yield* pairings.approve(pending!.pairing_id, { ...TERMS, reason: "known box" }, HTTP)
        expect(approved).toEqual({
          ...pending,
          status: "approved",
          trust_level: "local",
          capability_allowlist: [{ id: "cli.exec", version: "1.0.0" }],
          resolution: { decision: "approved", resolved_at: "1970-01-01T00:00:05.000Z", reason: "known box", resolved_by: HTTP },
          resolved_at: "1970-01-01T00:00:05.000Z"
        })
        const delivered = node.events("pairing.approved")
        expect(delivered).toHaveLength(1)
        expect(delivered[0]).toMatchObject({ payload: { pairing: approved }, scope: { kind: "node", node_id: "dev_n1" } })
        const token: string = delivered[0].payload.scoped_token
        expect(token).toMatch(/^svc-node\.v1\.[A-Za-z0-9_-]{43}$/)
        expect(nodeAgain.events("pairing.approved")[0].payload.scoped_token).toBe(token)
        for (const c of [operator, sameDeviceAsClient, otherNode]) expect(c.events("pairing.approved")).toEqual([])
        expect(operator.events("pairing.resolved").map((e) => e.payload.pairing)).toEqual([approved])
        expect(JSON.stringify(operator.received)).not.toContain(token)

        const stored = yield* sql<{ token_digest: string }>`SELECT token_digest FROM node_pairings WHERE pairing_id = ${approved.pairing_id}`
        expect(stored[0].token_digest).toBe(tokenDigest(token))
        expect(JSON.stringify(yield* sql`SELECT * FROM node_pairings`)).not.toContain(token)
        expect(JSON.stringify(approved)).not.toContain(stored[0].token_digest)

        expect(yield* pairings.authenticateToken(token)).toEqual({ kind: "node", nodeId: "dev_n1", pairingId: approved.pairing_id })
        for (const bad of ["", "svc-node.v1.", `${token}x`, token.replace("svc-node", "svc-device"), "svc-node.v1.AAAA"]) {
          expect((yield* Effect.flip(pairings.authenticateToken(bad)))._tag, bad).toBe("Unauthorized")
        }
        // Not pending any more: 404, no second token.
        const again = yield* Effect.flip(pairings.approve(approved.pairing_id, TERMS, HTTP))
        expect(again).toMatchObject({ _tag: "NotFound", message: `pairing ${approved.pairing_id} not found or not pending` })
        expect((yield* Effect.flip(pairings.deny(approved.pairing_id, {}, HTTP))).message).toMatch(/not found or not pending/)
        expect((yield* Effect.flip(pairings.approve(99, TERMS, HTTP))).message).toBe("pairing 99 not found or not pending")
        expect(node.events("pairing.approved")).toHaveLength(1)
        // A reconnect of the approved node refreshes it and keeps the approval; so does its scoped-token connection.
        expect((yield* pairings.nodeConnected(connected("dev_n1")))?.status).toBe("approved")
        expect(yield* pairings.nodeConnected(connected("dev_n1", { scopedPairingId: approved.pairing_id }))).toMatchObject({ status: "approved" })
        expect(yield* pairings.nodeConnected(connected("dev_n1", { scopedPairingId: approved.pairing_id + 1 }))).toBeUndefined()
      })))

    it.effect("concurrent approvals of one pairing: exactly one winner, one token", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const pairings = yield* Pairings
        const node = fakeConnection("n", "dev_race", adminPrincipal, "node")
        const operator = fakeConnection("op", "dev_op", adminPrincipal)
        for (const c of [node, operator]) yield* registry.add(c.handle)
        const pending = yield* pairings.nodeConnected(connected("dev_race"))
        const outcomes = yield* Effect.all(
          Array.from({ length: 10 }, (_, i) =>
            Effect.result(pairings.approve(pending!.pairing_id, { trust_level: i % 2 === 0 ? "local" : "remote", capability_allowlist: [] }, {
              kind: i % 2 === 0 ? "http" : "ws"
            }))),
          { concurrency: "unbounded" }
        )
        const winners = outcomes.filter((o) => o._tag === "Success")
        expect(winners).toHaveLength(1)
        for (const o of outcomes) if (o._tag === "Failure") expect(o.failure._tag).toBe("NotFound")
        expect(node.events("pairing.approved")).toHaveLength(1)
        expect(operator.events("pairing.resolved")).toHaveLength(1)
        const token = node.events("pairing.approved")[0].payload.scoped_token
        expect((yield* pairings.authenticateToken(token)).pairingId).toBe(pending!.pairing_id)
      })))

    it.effect("revoke: the token dies at once, every connection of the node closes 4001; a reconnect goes back to pending", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const pairings = yield* Pairings
        const operator = fakeConnection("op", "dev_op", device("dev_op", ["operator.pairing"]))
        const viaToken = fakeConnection("n-token", "dev_n", { kind: "node", nodeId: "dev_n", pairingId: 1 }, "node")
        const viaDevice = fakeConnection("n-device", "dev_n", device("dev_n", [], "node"), "node")
        const other = fakeConnection("other", "dev_other", adminPrincipal, "node")
        for (const c of [operator, viaToken, viaDevice, other]) yield* registry.add(c.handle)
        const pending = yield* pairings.nodeConnected(connected("dev_n"))
        const approved = yield* pairings.approve(pending!.pairing_id, { trust_level: "remote", capability_allowlist: [{ id: "desktop.screenshot" }] }, HTTP)
        const token = viaDevice.events("pairing.approved")[0].payload.scoped_token
        yield* TestClock.adjust(Duration.seconds(60))

        const revoked = yield* pairings.revoke(approved.pairing_id, { reason: "lost laptop" }, { kind: "ws", principal: "dev_op" })
        expect(revoked).toEqual({
          ...approved,
          status: "revoked",
          resolution: {
            decision: "revoked",
            resolved_at: "1970-01-01T00:01:00.000Z",
            reason: "lost laptop",
            resolved_by: { kind: "ws", principal: "dev_op" }
          },
          resolved_at: "1970-01-01T00:01:00.000Z"
        })
        expect(revoked.trust_level).toBe("remote") // what was revoked stays visible until the node re-requests
        expect(viaToken.closes).toEqual([{ code: 4001, reason: "pairing revoked" }])
        expect(viaDevice.closes).toEqual([{ code: 4001, reason: "pairing revoked" }])
        expect(other.closes).toEqual([])
        expect(operator.events("pairing.resolved").map((e) => e.payload.pairing.status)).toEqual(["approved", "revoked"])
        expect((yield* Effect.flip(pairings.authenticateToken(token)))._tag).toBe("Unauthorized")
        expect(yield* pairings.nodeConnected(connected("dev_n", { scopedPairingId: approved.pairing_id }))).toBeUndefined()
        const twice = yield* Effect.flip(pairings.revoke(approved.pairing_id, {}, HTTP))
        expect(twice.message).toBe(`pairing ${approved.pairing_id} not found or already revoked`)

        yield* TestClock.adjust(Duration.seconds(1))
        const reopened = yield* pairings.nodeConnected(connected("dev_n"))
        expect(reopened).toEqual({
          ...pending,
          requested_at: "1970-01-01T00:01:01.000Z",
          node: { ...pending!.node, last_seen_at: "1970-01-01T00:01:01.000Z" }
        })
        expect(operator.events("pairing.requested").map((e) => e.payload.pairing)).toEqual([pending, reopened])
        // Approving again issues a new token; the old one stays dead.
        yield* pairings.approve(approved.pairing_id, TERMS, HTTP)
        const fresh = viaDevice.events("pairing.approved")[1].payload.scoped_token
        expect(fresh).not.toBe(token)
        expect((yield* Effect.flip(pairings.authenticateToken(token)))._tag).toBe("Unauthorized")
        expect((yield* pairings.authenticateToken(fresh)).nodeId).toBe("dev_n")
        // The audit chain records the transitions, never a scoped token.
        const audited = JSON.stringify(yield* (yield* AuditLog).events("gateway.pairing"))
        expect(audited).toContain("pairing.approved")
        expect(audited).not.toContain(token)
        expect(audited).not.toContain(fresh)
      })))

    it.effect("deny: pending only; the node's connections close 4001; a denied node that connects again is pending again", () =>
      provide(Effect.gen(function*() {
        const registry = yield* ConnectionRegistry
        const pairings = yield* Pairings
        const operator = fakeConnection("op", "dev_op", adminPrincipal)
        const node = fakeConnection("n", "dev_d", adminPrincipal, "node")
        for (const c of [operator, node]) yield* registry.add(c.handle)
        const pending = yield* pairings.nodeConnected(connected("dev_d"))
        const denied = yield* pairings.deny(pending!.pairing_id, {}, { kind: "http" })
        expect(denied).toMatchObject({
          status: "denied",
          trust_level: null,
          resolution: { decision: "denied", resolved_at: "1970-01-01T00:00:00.000Z", resolved_by: { kind: "http" } }
        })
        expect(denied.resolution).not.toHaveProperty("reason")
        expect(node.closes).toEqual([{ code: 4001, reason: "pairing denied" }])
        expect(node.events("pairing.approved")).toEqual([])
        expect((yield* Effect.flip(pairings.deny(denied.pairing_id, {}, HTTP))).message).toMatch(/not found or not pending/)
        expect((yield* Effect.flip(pairings.approve(denied.pairing_id, TERMS, HTTP)))._tag).toBe("NotFound")
        // A denied pairing can still be revoked ("(any) → revoked").
        expect((yield* pairings.revoke(denied.pairing_id, {}, HTTP)).status).toBe("revoked")
        expect((yield* pairings.nodeConnected(connected("dev_d")))?.status).toBe("pending")
        expect((yield* pairings.deny(denied.pairing_id, { reason: "again" }, HTTP)).status).toBe("denied")
        expect((yield* pairings.nodeConnected(connected("dev_d")))?.status).toBe("pending")
        expect(operator.events("pairing.requested")).toHaveLength(3)
        expect(operator.events("pairing.resolved").map((e) => e.payload.pairing.status)).toEqual(["denied", "revoked", "denied"])
        // Every transition is in the gateway.pairing audit chain, in order.
        const audit = yield* AuditLog
        const chain = yield* audit.events("gateway.pairing")
        expect(chain.map((e) => (e.action as { type: string }).type)).toEqual([
          "pairing.requested",
          "pairing.denied",
          "pairing.revoked",
          "pairing.requested",
          "pairing.denied",
          "pairing.requested"
        ])
        expect(chain[1].action).toMatchObject({ pairing_id: denied.pairing_id, node_id: "dev_d", status: "denied" })
        expect(audit.verify(chain).valid).toBe(true)
      })))

    it.effect("lists newest first, by status; concurrent first connects of one node create one pairing", () =>
      provide(Effect.gen(function*() {
        const pairings = yield* Pairings
        for (const id of ["dev_a", "dev_b", "dev_c"]) {
          yield* pairings.nodeConnected(connected(id))
          yield* TestClock.adjust(Duration.seconds(1))
        }
        yield* pairings.approve(2, TERMS, HTTP)
        const all = yield* pairings.list()
        expect(all.map((p) => p.node.node_id)).toEqual(["dev_c", "dev_b", "dev_a"])
        expect((yield* pairings.list({ status: "pending" })).map((p) => p.node.node_id)).toEqual(["dev_c", "dev_a"])
        expect((yield* pairings.list({ status: "approved" })).map((p) => p.pairing_id)).toEqual([2])
        expect(yield* pairings.list({ status: "revoked" })).toEqual([])

        const racing = yield* Effect.all(Array.from({ length: 8 }, () => pairings.nodeConnected(connected("dev_race"))), {
          concurrency: "unbounded"
        })
        expect(new Set(racing.map((p) => p?.pairing_id)).size).toBe(1)
        expect((yield* pairings.list()).filter((p) => p.node.node_id === "dev_race")).toHaveLength(1)
      })))
  })
}
