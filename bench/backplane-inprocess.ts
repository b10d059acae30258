/**
 * In-process cost of the cross-connection deliveries the backplane carries,
 * through the service facades every subsystem uses (so the same file,
 * compiled against an older tree, measures that tree): an event published
 * to 100 connections (`EventBus.publish`, 50 in its audience), a direct
 * message (`EventBus.sendTo` one connection) and a gateway-initiated request
 * answered by the peer (`GatewayRequests.request` + `resolve`, the peer
 * answering on the next microtask). Prints one JSON line per case.
 *
 * Usage: `node dist/bench/backplane-inprocess.js [ms per case, default 2000]`.
 *
 * @module
 */
import { Effect, Layer, Schema } from "effect"
import { adminPrincipal, type Principal } from "../services/auth/principal.ts"
import { type ConnectionHandle, ConnectionRegistry } from "../services/ws-sessions/ConnectionRegistry.ts"
import { EventBus } from "../services/ws-sessions/EventBus.ts"
import { GatewayRequests } from "../services/ws-sessions/GatewayRequests.ts"

const reader: Principal = { kind: "device", tokenId: "t", deviceId: "d", role: "client", scopes: new Set(["operator.read"]) }
const BenchEvent = { type: "bench.event", payload: Schema.Unknown, audience: { roles: ["client"], requiredScopes: ["operator.approvals"] } } as const

const program = Effect.gen(function*() {
  const registry = yield* ConnectionRegistry
  const bus = yield* EventBus
  const requests = yield* GatewayRequests
  let bytes = 0
  for (let i = 0; i < 100; i++) {
    const connectionId = `c${i}`
    const handle: ConnectionHandle = {
      connectionId,
      role: "client",
      deviceId: `dev_${i}`,
      device: {},
      principal: i % 2 === 0 ? adminPrincipal : reader,
      capabilities: [],
      readyCapabilities: new Set(),
      connectedAt: new Date(0).toISOString(),
      remoteAddress: undefined,
      send: (text) => {
        bytes += text.length
        if (text.startsWith("{\"request_id\"")) {
          const { request_id } = JSON.parse(text) as { request_id: string }
          queueMicrotask(() => requests.resolve(connectionId, { request_id, type: "bench.request", ok: true, result: 1 }))
        }
        return true
      },
      close: () => {}
    }
    yield* registry.add(handle)
  }
  const ms = Number(process.argv[2] ?? 2000)
  const payload = { approval_id: 1, prompt: "deploy?", context: { plan_id: "p", step: 3 } }
  const one = registry.all()[1]!
  const cases: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
    ["publish to 100 connections (50 in audience)", bus.publish(BenchEvent, payload)],
    ["sendTo one connection", bus.sendTo([one], BenchEvent, payload)],
    ["request/reply round trip", requests.request("c1", "bench.request", payload)]
  ]
  for (const [name, op] of cases) {
    for (let i = 0; i < 2000; i++) yield* op // warm-up
    let ops = 0
    const start = performance.now()
    while (performance.now() - start < ms) {
      for (let i = 0; i < 200; i++) yield* op
      ops += 200
    }
    const elapsed = performance.now() - start
    console.log(JSON.stringify({ name, opsPerSecond: Math.round((ops / elapsed) * 1000), usPerOp: Number(((elapsed * 1000) / ops).toFixed(2)) }))
  }
  if (bytes === 0) throw new Error("nothing was delivered")
})

Effect.runPromise(program.pipe(
  Effect.provide(Layer.mergeAll(EventBus.layer, GatewayRequests.layer, ConnectionRegistry.layer))
) as Effect.Effect<void>).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
