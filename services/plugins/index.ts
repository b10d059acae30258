/**
 * The plugins subsystem's descriptor (docs/architecture.md "Subsystems";
 * docs/plugins.md): the plugin host, `GET /plugins` and `GET /plugins/:id`,
 * and the plugins' RPC routers at `/plugins/<id>/rpc/*` on the router
 * (authenticated by the global middleware, switched off with the group).
 *
 * @module
 */
import { Layer } from "effect"
import { SecretsLive } from "../secrets/index.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { PLUGINS_CHAIN } from "./chains.ts"
import { PluginsContract } from "./contract.ts"
import { McpClients } from "../mcp-clients/McpClients.ts"
import { PluginMcpServersLive } from "./mcpServers.ts"
import { Plugins } from "./Plugins.ts"
import { PluginsSettings } from "./settings.ts"
import { PluginRpcSwitch, PluginsHttp, PluginsSwitch } from "./transport/http.ts"
import { PluginRpcHttp, PluginRpcRoutes } from "./transport/rpcRoute.ts"

/**
 * The plugin host over the secrets subsystem (a plugin tool's granted secrets are resolved through it), and the
 * plugins' MCP servers attached to the MCP clients (the same instance as that subsystem's: layers are memoized).
 */
const layer = Layer.provideMerge(
  PluginMcpServersLive.pipe(Layer.provide(McpClients.layer)),
  Plugins.layer.pipe(Layer.provide(SecretsLive))
)

/** The plugins subsystem (src/subsystem/Subsystem.ts): what the composition root needs of it. */
export const PluginsSubsystem: Subsystem<
  typeof PluginsContract,
  typeof layer,
  typeof PluginsHttp,
  never,
  typeof PluginsSettings,
  typeof PluginRpcHttp
> = subsystem({
  contract: PluginsContract,
  layer,
  http: [PluginsHttp],
  switches: [PluginsSwitch, PluginRpcSwitch],
  routes: [{ layer: PluginRpcHttp, access: PluginRpcRoutes }],
  settings: [PluginsSettings],
  auditChains: [PLUGINS_CHAIN]
})
