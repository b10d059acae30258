/**
 * The PostgreSQL backplane (`Backplane.layerPostgres`): two instances built
 * in one process on one fresh schema, each with its own client and fake
 * connections. An event published on A reaches B's connections in the
 * audience only; a publish in a rolled-back transaction is never delivered
 * (and one that commits is, once); `sendTo` and `close` of B's connection
 * from A; a request from A to B's connection answered by its reply (result,
 * peer error, disconnect); the directory and `peers` across instances; B's
 * heartbeat stopping (TestClock) expires its entries on A. Runs only when
 * `SVC_TEST_DATABASE_URL` is set.
 */
import { afterEach, beforeEach, describe, expect, it } from "@effect/vitest"
import { Context, Duration, Effect, Exit, Fiber, Layer, type Scope } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { Backplane } from "../../../services/backplane/Backplane.ts"
import { BackplanePeers } from "../../../services/backplane/peers.ts"
import type { PostgresBackplaneOptions } from "../../../services/backplane/postgres.ts"
import { devicePrincipal, fakeConnection } from "../../support/connections.ts"
import { postgresUrl, sharedPostgresSchema } from "../../support/databases.ts"
import { eventually } from "../../support/eventually.ts"

const Approvers = { roles: ["client"], requiredScopes: ["operator.approvals"] } as const

let shared: Awaited<ReturnType<typeof sharedPostgresSchema>> | undefined

/** One instance on the shared schema: its backplane, peers and SQL client (its own pool). */
const instance = (options: PostgresBackplaneOptions): Effect.Effect<
  { readonly backplane: Backplane["Service"]; readonly peers: BackplanePeers["Service"]; readonly sql: SqlClient.SqlClient },
  unknown,
  Scope.Scope
> =>
  Effect.map(
    Layer.build(Backplane.layerPostgres(options).pipe(Layer.provideMerge(shared!.layer()))),
    (context) => ({
      backplane: Context.get(context, Backplane),
      peers: Context.get(context, BackplanePeers),
      sql: Context.get(context, SqlClient.SqlClient)
    })
  )

/** Waits (real time, generous deadline) until `check` holds. */
const until = (check: () => boolean, what: string) => Effect.promise(() => eventually(check, what))

describe.skipIf(postgresUrl === undefined)("Backplane.layerPostgres", () => {
  beforeEach(async () => {
    shared = await sharedPostgresSchema(postgresUrl!)
  })
  afterEach(async () => {
    await shared?.drop()
  })

  it.live("an event published on A reaches B's connections in the audience, and A's own, once each", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance({ instanceId: "A" })
      const b = yield* instance({ instanceId: "B" })
      const approverB = fakeConnection({ id: "approverB", principal: devicePrincipal("approverB", ["operator.approvals"]) })
      const readerB = fakeConnection({ id: "readerB", principal: devicePrincipal("readerB", ["operator.read"]) })
      const approverA = fakeConnection({ id: "approverA", principal: devicePrincipal("approverA", ["operator.approvals"]) })
      yield* b.backplane.register(approverB.handle)
      yield* b.backplane.register(readerB.handle)
      yield* a.backplane.register(approverA.handle)

      const published = yield* a.backplane.publish(Approvers, "approval.requested", { id: 1 })
      expect(published.delivered).toBe(1) // A's own connection, at once (no transaction)
      expect(approverA.events("approval.requested")).toEqual([published.envelope])
      yield* until(() => approverB.events("approval.requested").length === 1, "B's approver to get the event")
      expect(approverB.events("approval.requested")).toEqual([published.envelope])

      // A later event also arrives, in order; nothing reached the reader, nothing came twice.
      yield* a.backplane.publish(Approvers, "approval.resolved", { id: 1 })
      yield* until(() => approverB.events("approval.resolved").length === 1, "the second event on B")
      yield* until(() => approverA.received.length === 2, "the second event on A")
      yield* Effect.sleep(Duration.millis(300))
      expect(approverB.received.map((m) => m.type)).toEqual(["approval.requested", "approval.resolved"])
      expect(approverA.received.map((m) => m.type)).toEqual(["approval.requested", "approval.resolved"])
      expect(readerB.received).toEqual([])
    })))

  it.live("without LISTEN, polling alone delivers events, the directory and replies", () =>
    Effect.scoped(Effect.gen(function*() {
      const polling = { listen: false, pollInterval: Duration.millis(50) }
      const a = yield* instance({ instanceId: "A", ...polling })
      const b = yield* instance({ instanceId: "B", ...polling })
      const node = fakeConnection({
        id: "nodeB",
        role: "node",
        onRequest: (request) => b.backplane.reply("nodeB", { request_id: request.request_id, ok: true, result: "done" })
      })
      yield* b.backplane.register(node.handle)
      yield* until(() => a.backplane.lookup("nodeB") !== undefined, "B's node on A by polling")
      yield* a.backplane.publish({ roles: ["node"] }, "node.hello", {})
      yield* until(() => node.events("node.hello").length === 1, "the event on B by polling")
      expect(yield* a.backplane.request("nodeB", "task.execute", {}, { timeout: Duration.seconds(20) })).toBe("done")
    })))

  it.live("a publish inside a rolled-back transaction is never delivered; one inside a committed one is, after the commit", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance({ instanceId: "A" })
      const b = yield* instance({ instanceId: "B" })
      const onA = fakeConnection({ id: "onA" })
      const onB = fakeConnection({ id: "onB" })
      yield* a.backplane.register(onA.handle)
      yield* b.backplane.register(onB.handle)

      const rolledBack = yield* Effect.exit(a.sql.withTransaction(
        Effect.andThen(a.backplane.publish({}, "never.sent", {}), Effect.fail("rollback"))
      ))
      expect(Exit.isFailure(rolledBack)).toBe(true)

      const committed = yield* a.sql.withTransaction(Effect.gen(function*() {
        const published = yield* a.backplane.publish({}, "after.commit", {})
        expect(onA.received).toEqual([]) // not before the commit
        return published
      }))
      expect(onA.events("after.commit")).toEqual([committed.envelope])
      yield* until(() => onB.events("after.commit").length === 1, "the committed event on B")
      yield* Effect.sleep(Duration.millis(300))
      expect(onB.received.map((m) => m.type)).toEqual(["after.commit"])
      expect(onA.received.map((m) => m.type)).toEqual(["after.commit"])
    })))

  it.live("sendTo and close reach a connection held by B from A; the directory shows both instances' connections", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance({ instanceId: "A" })
      const b = yield* instance({ instanceId: "B" })
      const node = fakeConnection({ id: "nodeB", role: "node", advertised: [{ id: "cli.exec" }] })
      const other = fakeConnection({ id: "otherB" })
      const client = fakeConnection({ id: "clientA" })
      yield* b.backplane.register(node.handle)
      yield* b.backplane.register(other.handle)
      yield* a.backplane.register(client.handle)
      yield* b.backplane.setReady("nodeB", ["cli.exec"])

      yield* until(() => a.backplane.lookup("nodeB")?.readyCapabilities.has("cli.exec") === true, "B's node with its ready set on A")
      expect(a.backplane.lookup("nodeB")).toMatchObject({ role: "node", deviceId: "dev_nodeB", capabilities: [{ id: "cli.exec" }] })
      expect(a.backplane.connections().map((c) => c.connectionId).sort()).toEqual(["clientA", "nodeB", "otherB"])
      expect(a.backplane.size()).toBe(3)

      yield* a.backplane.sendTo(["nodeB", "clientA"], "pairing.approved", { scoped_token: "x" })
      expect(client.events("pairing.approved")).toHaveLength(1)
      yield* until(() => node.events("pairing.approved").length === 1, "the direct event on B's node")
      expect(other.received).toEqual([])
      // The direct row (it carries a token) is deleted once B delivered it.
      yield* Effect.promise(() =>
        eventually(
          () => Effect.runPromise(Effect.map(a.sql`SELECT COUNT(*) AS n FROM backplane_outbox WHERE target_instance_id = 'B'`, (r) => Number(r[0]?.n) === 0)),
          "the delivered direct row deleted"
        )
      )

      yield* a.backplane.close("nodeB", 4003, "pairing revoked")
      yield* until(() => node.closes.length === 1, "B's node closed")
      expect(node.closes).toEqual([{ code: 4003, reason: "pairing revoked" }])

      yield* b.backplane.unregister("otherB")
      yield* until(() => a.backplane.lookup("otherB") === undefined, "B's unregistered connection gone on A")
    })))

  it.live("a request from A to B's connection is answered by its reply; a peer error and a disconnect come back as such", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance({ instanceId: "A" })
      const b = yield* instance({ instanceId: "B" })
      let answer: "ok" | "fail" | "none" = "ok"
      const node = fakeConnection({
        id: "nodeB",
        role: "node",
        onRequest: (request) => {
          if (answer === "ok") b.backplane.reply("nodeB", { request_id: request.request_id, ok: true, result: { echoed: request.payload } })
          if (answer === "fail") {
            b.backplane.reply("nodeB", { request_id: request.request_id, ok: false, error: { code: "denied", message: "no" } })
          }
        }
      })
      yield* b.backplane.register(node.handle)
      yield* until(() => a.backplane.lookup("nodeB") !== undefined, "B's node on A")

      const result = yield* a.backplane.request("nodeB", "task.execute", { step: 1 }, { timeout: Duration.seconds(20) })
      expect(result).toEqual({ echoed: { step: 1 } })
      expect(node.requests("task.execute")).toHaveLength(1)
      // Asked from inside a transaction: the request row is written outside it, so the answer does not wait for a commit.
      const inTransaction = yield* a.sql.withTransaction(a.backplane.request("nodeB", "task.execute", { step: 2 }, { timeout: Duration.seconds(20) }))
      expect(inTransaction).toEqual({ echoed: { step: 2 } })

      answer = "fail"
      const failed = yield* Effect.flip(a.backplane.request("nodeB", "task.execute", {}, { timeout: Duration.seconds(20) }))
      expect(failed).toMatchObject({ _tag: "PeerRequestFailed", code: "denied", message: "no", connectionId: "nodeB" })

      answer = "none"
      const waiting = yield* Effect.forkChild(Effect.flip(a.backplane.request("nodeB", "task.execute", {}, { timeout: Duration.seconds(20) })))
      yield* until(() => node.requests("task.execute").length === 4 && b.backplane.pendingCount() === 1, "the last request on B")
      yield* b.backplane.unregister("nodeB")
      expect(yield* Fiber.join(waiting)).toMatchObject({ _tag: "PeerDisconnected", connectionId: "nodeB" })
      expect(a.backplane.pendingCount()).toBe(0)

      expect(yield* Effect.flip(a.backplane.request("nobody", "task.execute", {}))).toMatchObject({ _tag: "PeerNotConnected" })
    })))

  it.live("the heartbeat writes again a connection row that was lost, and deletes one of a connection no longer there", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance({ instanceId: "A" })
      const b = yield* instance({ instanceId: "B", heartbeatInterval: Duration.millis(100) })
      yield* b.backplane.register(fakeConnection({ id: "nodeB", role: "node" }).handle)
      yield* until(() => a.backplane.lookup("nodeB") !== undefined, "B's node on A")
      yield* b.sql`DELETE FROM backplane_connections WHERE connection_id = 'nodeB'`
      yield* b.sql`INSERT INTO backplane_connections (connection_id, instance_id, role, device_id, capabilities, ready, entry, connected_at, expires_at)
        SELECT 'ghost', 'B', 'client', 'dev_ghost', '[]', '[]', '{}', '1970-01-01T00:00:00.000Z', '9999-01-01T00:00:00.000Z'`
      const ids = Effect.map(a.sql`SELECT connection_id FROM backplane_connections ORDER BY connection_id`, (rows) => rows.map((r) => r.connection_id).join())
      yield* Effect.promise(() => eventually(() => Effect.runPromise(Effect.map(ids, (x) => x === "nodeB")), "nodeB written again, ghost deleted"))
    })))

  it.live("peers lists the live instances with role and version", () =>
    Effect.scoped(Effect.gen(function*() {
      const a = yield* instance({ instanceId: "A", role: "edge", version: "9.9.9" })
      yield* instance({ instanceId: "B", role: "worker" })
      expect(a.peers.instanceId).toBe("A")
      const peers = yield* a.peers.peers
      expect(peers.map((p) => [p.instance_id, p.role]).sort()).toEqual([["A", "edge"], ["B", "worker"]])
      expect(peers.find((p) => p.instance_id === "A")).toMatchObject({ version: "9.9.9" })
    })))

  it.effect("B's heartbeat stopping expires its directory entries and its peer row on A (TestClock)", () =>
    Effect.scoped(Effect.gen(function*() {
      const ttl = { connectionTtl: Duration.seconds(30), pollInterval: Duration.seconds(1), retention: Duration.seconds(20) }
      const a = yield* instance({ instanceId: "A", heartbeatInterval: Duration.seconds(5), ...ttl })
      // B is alive at first and then silent: its next heartbeat is an hour away.
      const b = yield* instance({ instanceId: "B", heartbeatInterval: Duration.hours(1), ...ttl })
      yield* b.backplane.register(fakeConnection({ id: "nodeB", role: "node" }).handle)
      yield* until(() => a.backplane.lookup("nodeB") !== undefined, "B's node on A")
      expect((yield* a.peers.peers).map((p) => p.instance_id).sort()).toEqual(["A", "B"])
      yield* a.backplane.publish({}, "before.silence", {})
      expect(Number((yield* a.sql`SELECT COUNT(*) AS n FROM backplane_outbox`)[0]?.n)).toBe(1)

      // Time moves 5 s at a time, each step given real time for the heartbeats' writes, until B is gone on A
      // (its rows expired at 30 s; A's heartbeat keeps A live). B's next heartbeat stays an hour away.
      let live: ReadonlyArray<string> = ["A", "B"]
      for (let i = 0; i < 100 && (a.backplane.lookup("nodeB") !== undefined || live.join() !== "A"); i++) {
        yield* TestClock.adjust(Duration.seconds(5))
        yield* Effect.promise(() => new Promise((resolve) => globalThis.setTimeout(resolve, 50)))
        live = (yield* a.peers.peers).map((p) => p.instance_id)
      }
      expect(a.backplane.lookup("nodeB")).toBeUndefined()
      expect(a.backplane.connections()).toEqual([])

      // Retention (20 s here): the event published at the start is deleted by a later sweep.
      const count = Effect.map(a.sql`SELECT COUNT(*) AS n FROM backplane_outbox`, (rows) => Number(rows[0]?.n))
      let left = -1
      for (let i = 0; i < 100 && left !== 0; i++) {
        left = yield* count
        if (left !== 0) {
          yield* TestClock.adjust(Duration.seconds(5))
          yield* Effect.promise(() => new Promise((resolve) => globalThis.setTimeout(resolve, 50)))
        }
      }
      expect(left).toBe(0)
      expect(live).toEqual(["A"])
    })))
})
