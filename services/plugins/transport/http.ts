/**
 * Plugin handlers (transport/httpApi.ts): one call to `Plugins` each.
 * Switched off ({@link PluginsSwitch}) unless `SVC_PLUGINS_ENABLED=1`: after
 * authorization the routes, and the plugins' RPC routes, answer 404.
 *
 * @module
 */
import { Effect } from "effect"
import type { GatewaySettings } from "../../../layers/config.ts"
import type { HttpGroupSwitch } from "../../../src/http/middleware.ts"
import { apiOf, group } from "../../../src/http/serve.ts"
import { Plugins } from "../Plugins.ts"
import { PluginsApi } from "./httpApi.ts"
import { PLUGIN_RPC_GROUP } from "./rpcRoute.ts"

/** `GET /plugins` and `GET /plugins/:id` are served only with `pluginsEnabled`. */
export const PluginsSwitch: HttpGroupSwitch = {
  group: "plugins",
  served: (settings: GatewaySettings) => settings.pluginsEnabled
}

/** So are the plugins' RPC routers (transport/rpcRoute.ts). */
export const PluginRpcSwitch: HttpGroupSwitch = {
  group: PLUGIN_RPC_GROUP,
  served: (settings: GatewaySettings) => settings.pluginsEnabled
}

/** Plugin handlers; need {@link Plugins}. */
export const PluginsHttp = group(apiOf(PluginsApi), "plugins", (handlers) => Effect.gen(function*() {
  const plugins = yield* Plugins
  return handlers.handleAll({
    list: () => Effect.map(plugins.list(), (listed) => ({ status: "ok" as const, ...listed })),
    get: ({ params }) => Effect.map(plugins.get(params.id), (plugin) => ({ status: "ok" as const, plugin }))
  })
}))
