/**
 * `GET /mcp/servers` (transport/httpApi.ts): one call to `McpClients`. Switched off ({@link McpClientsSwitch})
 * unless `SVC_AGENT_ENABLED=1`: the servers only run with the agent runtime.
 *
 * @module
 */
import { Effect } from "effect"
import type { GatewaySettings } from "../../../layers/config.ts"
import type { HttpGroupSwitch } from "../../../src/http/middleware.ts"
import { apiOf, group } from "../../../src/http/serve.ts"
import { McpClients } from "../McpClients.ts"
import { McpClientsApi } from "./httpApi.ts"

/** `/mcp/servers` is served only with `agentEnabled` (`SVC_AGENT_ENABLED=1`). */
export const McpClientsSwitch: HttpGroupSwitch = {
  group: "mcpClients",
  served: (settings: GatewaySettings) => settings.agentEnabled
}

/** Handlers; need {@link McpClients}. */
export const McpClientsHttp = group(apiOf(McpClientsApi), "mcpClients", (handlers) => Effect.gen(function*() {
  const clients = yield* McpClients
  return handlers.handleAll({
    servers: () => clients.servers()
  })
}))
