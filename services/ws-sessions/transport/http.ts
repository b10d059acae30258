/**
 * `GET /connections` and `GET /presence` (src/http/api/diagnostics.ts): summaries of the cluster's WS sessions, each
 * with the instance holding it; `?instance=<id>` keeps one instance's (services/backplane/instanceFilter.ts).
 */
import { DiagnosticsApi } from "./httpApi.ts"
import { Effect } from "effect"
import { BackplanePeers } from "../../backplane/peers.ts"
import { ConnectionRegistry } from "../ConnectionRegistry.ts"
import { Presence } from "../Presence.ts"
import type { ConnectionSummary } from "./httpApi.ts"
import { apiOf, group } from "../../../src/http/serve.ts"

/** Diagnostics handlers; need {@link ConnectionRegistry}, {@link Presence} and `BackplanePeers`. */
export const DiagnosticsHttp = group(apiOf(DiagnosticsApi), "diagnostics", (handlers) => Effect.gen(function*() {
  const registry = yield* ConnectionRegistry
  const presence = yield* Presence
  const peers = yield* BackplanePeers
  return handlers.handleAll({
    connections: ({ query }) =>
      Effect.sync(() => {
        const byRole = { client: 0, node: 0 }
        const capabilityCounts: Record<string, number> = {}
        const connections: Array<ConnectionSummary> = []
        for (const c of registry.all()) {
          // A connection that left the directory since the snapshot has no holder: not listed.
          const holder = peers.holderOf(c.connectionId)
          if (holder === undefined || (query.instance !== undefined && holder !== query.instance)) continue
          byRole[c.role]++
          for (const cap of c.capabilities) capabilityCounts[cap.id] = (capabilityCounts[cap.id] ?? 0) + 1
          connections.push({
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
            instance_id: holder,
            remote_address: c.remoteAddress ?? null,
            token_kind: c.principal.kind,
            scopes: c.principal.kind === "device" ? [...c.principal.scopes] : c.principal.kind === "admin" ? ["*"] : []
          })
        }
        const total = connections.length
        return { status: "ok", total, by_role: byRole, totalClients: total, capabilityCounts, connections } as const
      }),
    presence: ({ query }) =>
      Effect.map(presence.snapshot, (snapshot) => ({
        status: "ok",
        generated_at: snapshot.generatedAt,
        entries: query.instance === undefined
          ? snapshot.entries
          : snapshot.entries.filter((e) => e.gateway_instance_id === query.instance)
      }) as const)
  })
}))
