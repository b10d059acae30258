/**
 * `GET /connections` and `GET /presence` (gateway-api.md "Runtime and
 * diagnostics", operator.read). No secret appears in either: principals are
 * summarised as token kind and scopes.
 */
import { Effect, Layer } from "effect"
import { HttpRouter } from "effect/http"
import { ConnectionRegistry } from "../../../services/ws-sessions/ConnectionRegistry.ts"
import { Presence } from "../../../services/ws-sessions/Presence.ts"
import { json } from "../respond.ts"

/** Registers the two diagnostics routes. */
export const ConnectionRoutes = Layer.unwrap(Effect.gen(function*() {
  const registry = yield* ConnectionRegistry
  const presence = yield* Presence

  const connections = Effect.sync(() => {
    const all = registry.all()
    const byRole = { client: 0, node: 0 }
    const capabilityCounts: Record<string, number> = {}
    const summaries = all.map((c) => {
      byRole[c.role]++
      for (const cap of c.capabilities) capabilityCounts[cap.id] = (capabilityCounts[cap.id] ?? 0) + 1
      return {
        connection_id: c.connectionId,
        role: c.role,
        device_id: c.deviceId,
        label: c.device.label ?? null,
        platform: c.device.platform ?? null,
        version: c.device.version ?? null,
        mode: c.device.mode ?? null,
        capabilities: c.capabilities,
        ready_capabilities: [...c.readyCapabilities],
        connected_at: c.connectedAt,
        remote_address: c.remoteAddress ?? null,
        token_kind: c.principal.kind,
        scopes: c.principal.kind === "device" ? [...c.principal.scopes] : ["*"]
      }
    })
    return json({
      status: "ok",
      total: all.length,
      by_role: byRole,
      totalClients: all.length,
      capabilityCounts,
      connections: summaries
    })
  })

  return Layer.mergeAll(
    HttpRouter.add("GET", "/connections", connections),
    HttpRouter.add("GET", "/presence", Effect.map(presence.snapshot, (snapshot) => json(snapshot)))
  )
}))
