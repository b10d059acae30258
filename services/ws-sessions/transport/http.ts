/** `GET /connections` and `GET /presence` (src/http/api/diagnostics.ts): summaries of this instance's WS sessions. */
import { DiagnosticsApi } from "./httpApi.ts"
import { Effect } from "effect"
import { ConnectionRegistry } from "../ConnectionRegistry.ts"
import { Presence } from "../Presence.ts"
import type { ConnectionSummary } from "./httpApi.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Diagnostics handlers; need {@link ConnectionRegistry} and {@link Presence}. */
export const DiagnosticsHttp = group(apiOf(DiagnosticsApi), "diagnostics", (handlers) => Effect.gen(function*() {
  const registry = yield* ConnectionRegistry
  const presence = yield* Presence
  return handlers.handleAll({
    connections: () =>
      Effect.sync(() => {
        const all = registry.all()
        const byRole = { client: 0, node: 0 }
        const capabilityCounts: Record<string, number> = {}
        const connections = all.map((c): ConnectionSummary => {
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
            scopes: c.principal.kind === "device" ? [...c.principal.scopes] : c.principal.kind === "admin" ? ["*"] : []
          }
        })
        return { status: "ok", total: all.length, by_role: byRole, totalClients: all.length, capabilityCounts, connections } as const
      }),
    presence: () =>
      Effect.map(presence.snapshot, (snapshot) => ({ status: "ok", generated_at: snapshot.generatedAt, entries: snapshot.entries }) as const)
  })
}))
