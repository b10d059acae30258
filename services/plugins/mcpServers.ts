/**
 * The MCP servers plugins declare (`contributes.mcp_servers`, docs/plugins.md) attached as agent tool sources
 * (services/mcp-clients, docs/mcp.md): each loaded plugin's server `<name>` becomes server `<plugin id>_<name>`
 * owned by `plugin:<plugin id>`, so its tools are `mcp_<plugin id>_<name>_<tool>` with policy tool ids
 * `mcp.<plugin id>_<name>.<tool>`. A stdio server runs in the plugin's directory with the manifest's `args` and `env`.
 * A server that cannot be attached (a name over 32 characters, one `mcp.yml` already holds) is logged and skipped.
 * A plugin given up (its worker failing again and again) loses its servers too: they are detached (stopped), as its
 * other contributions are withdrawn.
 *
 * @module
 */
import { Effect, Layer, PubSub } from "effect"
import { McpClients } from "../mcp-clients/McpClients.ts"
import { Plugins } from "./Plugins.ts"

/** The server name a plugin's MCP server gets among the gateway's: `<plugin id>_<name>`. */
export const pluginMcpServerName = (pluginId: string, name: string): string => `${pluginId}_${name}`

/** Attaches every loaded plugin's declared MCP servers once the plugins are loaded. */
export const PluginMcpServersLive = Layer.effectDiscard(Effect.gen(function*() {
  const plugins = yield* Plugins
  const clients = yield* McpClients
  // Subscribed before attaching: a plugin given up meanwhile is seen.
  const givenUp = yield* plugins.givenUp
  const attached = new Map<string, Array<string>>()
  yield* Effect.forkScoped(Effect.forever(Effect.flatMap(PubSub.take(givenUp), (plugin_id) =>
    Effect.forEach(attached.get(plugin_id) ?? [], (name) =>
      Effect.andThen(
        clients.detach(name),
        Effect.logWarning("plugins: the MCP server of a plugin given up was detached").pipe(Effect.annotateLogs({ plugin_id, server: name }))
      ), { discard: true }).pipe(Effect.ensuring(Effect.sync(() => attached.delete(plugin_id))))
  )))
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
      Effect.andThen(Effect.sync(() => attached.set(plugin_id, [...(attached.get(plugin_id) ?? []), name]))),
      Effect.catch((error) =>
        Effect.logWarning("plugins: an MCP server of a plugin was not attached").pipe(
          Effect.annotateLogs({ plugin_id, server: server.name, reason: error.message })
        )
      )
    )
  }
}))
