/**
 * The local backplane (`Backplane.layerLocal`): the connection directory
 * (register, lookup, order, ready set, unregister), events to an audience
 * and to exactly some connections (serialized once, counted), closing a
 * connection, and gateway-initiated requests with their replies (result,
 * peer error, timeout on TestClock, disconnect, not connected). The
 * facades (EventBus, ConnectionRegistry, GatewayRequests) share it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import { TestClock } from "effect/testing"
import { Backplane } from "../../../services/backplane/Backplane.ts"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../../../services/ws-sessions/EventBus.ts"
import { GatewayRequests } from "../../../services/ws-sessions/GatewayRequests.ts"
import * as GatewayEvent from "../../../services/ws-sessions/GatewayEvent.ts"
import { Schema } from "effect"
import { devicePrincipal, fakeConnection } from "../../support/connections.ts"

const Approvers = { roles: ["client"], requiredScopes: ["operator.approvals"] } as const

const withBackplane = <A, E>(body: Effect.Effect<A, E, Backplane>) => body.pipe(Effect.provide(Backplane.layerLocal))

const connections = () => ({
  admin: fakeConnection({ id: "admin" }),
  approver: fakeConnection({ id: "approver", principal: devicePrincipal("approver", ["operator.approvals"]) }),
  reader: fakeConnection({ id: "reader", principal: devicePrincipal("reader", ["operator.read"]) }),
  node: fakeConnection({ id: "node", role: "node", advertised: [{ id: "cli.exec" }] })
})

describe("Backplane (local)", () => {
  it.effect("directory: entries in connection order, looked up by id, ready set replaced, removed on unregister", () =>
    withBackplane(Effect.gen(function*() {
      const backplane = yield* Backplane
      const c = connections()
      for (const x of [c.admin, c.reader, c.node]) yield* backplane.register(x.handle)
      expect(backplane.connections().map((e) => e.connectionId)).toEqual(["admin", "reader", "node"])
      expect(backplane.size()).toBe(3)
      expect(backplane.lookup("node")?.deviceId).toBe("dev_node")
      yield* backplane.setReady("node", ["cli.exec"])
      expect([...backplane.lookup("node")!.readyCapabilities]).toEqual(["cli.exec"])
      yield* backplane.setReady("node", [])
      expect(backplane.lookup("node")!.readyCapabilities.size).toBe(0)
      yield* backplane.setReady("gone", ["cli.exec"]) // not connected: nothing
      yield* backplane.unregister("reader")
      expect(backplane.lookup("reader")).toBeUndefined()
      expect(backplane.connections().map((e) => e.connectionId)).toEqual(["admin", "node"])
    })))

  it.effect("publish reaches exactly the audience with one envelope; sendTo exactly the named connections", () =>
    withBackplane(Effect.gen(function*() {
      const backplane = yield* Backplane
      const c = connections()
      for (const x of Object.values(c)) yield* backplane.register(x.handle)
      const published = yield* backplane.publish(Approvers, "approval.requested", { id: 1 }, { kind: "run", run_id: "r" })
      expect(published.delivered).toBe(2)
      expect(c.admin.events("approval.requested")).toEqual([published.envelope])
      expect(c.approver.events("approval.requested")).toEqual([published.envelope])
      expect(c.reader.received).toEqual([])
      expect(c.node.received).toEqual([])
      expect(published.envelope).toMatchObject({ type: "approval.requested", payload: { id: 1 }, scope: { kind: "run", run_id: "r" } })

      const direct = yield* backplane.sendTo(["reader", "gone"], "pairing.approved", { token: "t" })
      expect(direct.delivered).toBe(1)
      expect(c.reader.events("pairing.approved")).toEqual([direct.envelope])
      expect("scope" in direct.envelope).toBe(false)
      expect(c.admin.events("pairing.approved")).toEqual([])
    })))

  it.effect("close closes that connection only", () =>
    withBackplane(Effect.gen(function*() {
      const backplane = yield* Backplane
      const c = connections()
      for (const x of [c.node, c.reader]) yield* backplane.register(x.handle)
      yield* backplane.close("node", 4401, "pairing revoked")
      yield* backplane.close("gone", 4401, "nothing")
      expect(c.node.closes).toEqual([{ code: 4401, reason: "pairing revoked" }])
      expect(c.reader.closes).toEqual([])
    })))

  it.effect("request/reply: the result, a peer error, a reply nobody waits for", () =>
    withBackplane(Effect.gen(function*() {
      const backplane = yield* Backplane
      const node = fakeConnection({ id: "node", role: "node" })
      yield* backplane.register(node.handle)
      const asked = yield* Effect.forkChild(backplane.request("node", "task.execute", { step: 1 }, { requestId: "task-1" }))
      yield* Effect.yieldNow
      expect(node.requests()).toEqual([{ request_id: "task-1", type: "task.execute", payload: { step: 1 } }])
      expect(backplane.pendingCount()).toBe(1)
      expect(backplane.reply("other", { request_id: "task-1", ok: true })).toBe(false)
      expect(backplane.reply("node", { request_id: "task-1", type: "task.execute", ok: true, result: { done: true } })).toBe(true)
      expect(yield* Fiber.join(asked)).toEqual({ done: true })
      expect(backplane.pendingCount()).toBe(0)
      expect(backplane.reply("node", { request_id: "task-1", ok: true })).toBe(false)

      const refused = yield* Effect.forkChild(Effect.flip(backplane.request("node", "task.execute", {})))
      yield* Effect.yieldNow
      const requestId = node.requests().at(-1).request_id as string
      expect(requestId).toMatch(/^task\.execute-/)
      backplane.reply("node", { request_id: requestId, ok: false, error: { code: "busy", message: "later", details: { n: 1 } } })
      expect(yield* Fiber.join(refused)).toMatchObject({ _tag: "PeerRequestFailed", code: "busy", message: "later", details: { n: 1 } })
    })))

  it.effect("request/reply: timeout (TestClock), disconnect, not connected", () =>
    withBackplane(Effect.gen(function*() {
      const backplane = yield* Backplane
      const node = fakeConnection({ id: "node", role: "node" })
      yield* backplane.register(node.handle)
      const slow = yield* Effect.forkChild(Effect.flip(backplane.request("node", "task.execute", {}, { timeout: Duration.seconds(2) })))
      yield* TestClock.adjust(Duration.seconds(2))
      expect((yield* Fiber.join(slow))._tag).toBe("PeerRequestTimeout")
      expect(backplane.pendingCount()).toBe(0)

      const cut = yield* Effect.forkChild(Effect.flip(backplane.request("node", "task.execute", {})))
      yield* Effect.yieldNow
      yield* backplane.unregister("node")
      expect((yield* Fiber.join(cut))._tag).toBe("PeerDisconnected")
      expect((yield* Effect.flip(backplane.request("node", "task.execute", {})))._tag).toBe("PeerNotConnected")
    })))

  it.effect("the facades are views of one backplane", () =>
    Effect.gen(function*() {
      const backplane = yield* Backplane
      const registry = yield* ConnectionRegistry
      const bus = yield* EventBus
      const requests = yield* GatewayRequests
      const approver = fakeConnection({ id: "approver", principal: devicePrincipal("approver", ["operator.approvals"]) })
      yield* registry.add(approver.handle)
      expect(backplane.lookup("approver")).toBe(approver.handle)
      const Event = GatewayEvent.make("bench.event", { payload: Schema.Struct({ n: Schema.Number }), audience: Approvers })
      expect((yield* bus.publish(Event, { n: 1 })).delivered).toBe(1)
      const asked = yield* Effect.forkChild(requests.request("approver", "approval.request", {}, { requestId: "approval-1" }))
      yield* Effect.yieldNow
      expect(requests.resolve("approver", { request_id: "approval-1", type: "approval.request", ok: true, result: 7 })).toBe(true)
      expect(yield* Fiber.join(asked)).toBe(7)
      yield* registry.remove("approver")
      expect(backplane.size()).toBe(0)
    }).pipe(Effect.provide(Layer.mergeAll(ConnectionRegistry.layer, EventBus.layer, GatewayRequests.layer))))
})
