/**
 * The MCP servers plugins declare (`contributes.mcp_servers`, docs/plugins.md) attached as agent tool sources
 * (services/mcp-clients, docs/mcp.md): each loaded plugin's server `<name>` becomes server `<plugin id>_<name>`
 * owned by `plugin:<plugin id>`, so its tools are `mcp_<plugin id>_<name>_<tool>` with policy tool ids
 * `mcp.<plugin id>_<name>.<tool>`. A stdio server runs in the plugin's directory with the manifest's `args` and `env`.
 * A server that cannot be attached (a name over 32 characters, one `mcp.yml` already holds) is logged and skipped.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { McpClients } from "../mcp-clients/McpClients.ts"
import { Plugins } from "./Plugins.ts"

/** The server name a plugin's MCP server gets among the gateway's: `<plugin id>_<name>`. */
export const pluginMcpServerName = (pluginId: string, name: string): string => `${pluginId}_${name}`

/** Attaches every loaded plugin's declared MCP servers once the plugins are loaded. */
export const PluginMcpServersLive = Layer.effectDiscard(Effect.gen(function*() {
  const plugins = yield* Plugins
  const clients = yield* McpClients
  for (const { plugin_id, server, source_dir } of plugins.mcpServers()) {
    const name = pluginMcpServerName(plugin_id, server.name)
    const spec = server.url !== undefined
      ? { url: server.url }
      : {
        command: server.command!,
        cwd: source_dir,
        ...(server.args !== undefined ? { args: server.args } : {}),
        ...(server.env !== undefined ? { env: server.env } : {})
      }
    yield* clients.attach(name, spec, `plugin:${plugin_id}`).pipe(
      Effect.catch((error) =>
        Effect.logWarning("plugins: an MCP server of a plugin was not attached").pipe(
          Effect.annotateLogs({ plugin_id, server: server.name, reason: error.message })
        )
      )
    )
  }
}))
