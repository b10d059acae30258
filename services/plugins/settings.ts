/**
 * Plugin settings (issue 26 §1; layers/settings.ts; docs/plugins.md
 * "Settings"): whether plugins are loaded and served, whether a plugin
 * without a lock file may load, and how long one call into a plugin may take.
 *
 * @module
 */
import { Setting } from "../../layers/settings.ts"

/** `SVC_PLUGINS_ENABLED`, `SVC_PLUGINS_ALLOW_UNLOCKED`, `SVC_PLUGIN_CALL_TIMEOUT_MS`. */
export const PluginsSettings = Setting.group("plugins", {
  plugins: Setting.named(
    "pluginsEnabled",
    Setting.toggle({
      env: "SVC_PLUGINS_ENABLED",
      flag: "plugins",
      values: ["1", "0"],
      on: "1",
      default: "0",
      summary: "Plugins from $SVC_HOME/plugins (SVC_PLUGINS_ENABLED=1); 0 loads none and answers /plugins* 404",
      doc: "`1` loads the plugins of `$SVC_HOME/plugins/<id>/` (docs/plugins.md) and serves `GET /plugins`, " +
        "`GET /plugins/:id` and `/plugins/<id>/rpc/*`; `0` (the default) loads nothing and answers those routes 404."
    })
  ),
  pluginsAllowUnlocked: Setting.named(
    "pluginsAllowUnlocked",
    Setting.toggle({
      env: "SVC_PLUGINS_ALLOW_UNLOCKED",
      flag: "plugins-allow-unlocked",
      values: ["1", "0"],
      on: "1",
      default: "0",
      summary: "Load plugins that have no plugin.lock.json (SVC_PLUGINS_ALLOW_UNLOCKED=1; listed as unlocked)",
      doc: "`0` (the default) refuses a plugin directory without `plugin.lock.json` (error `unlocked`; record one with " +
        "`svc-gateway plugins lock <id>`); `1` loads it anyway, listed with `integrity.state: \"unlocked\"` (for " +
        "developing a plugin)."
    })
  ),
  pluginCallTimeoutMs: Setting.integer({
    env: "SVC_PLUGIN_CALL_TIMEOUT_MS",
    flag: "plugin-call-timeout",
    default: 10_000,
    min: 100,
    max: 600_000,
    unit: "milliseconds",
    summary: "Longest call into a plugin's worker (a tool, command or rpc call) before it fails and the worker restarts (SVC_PLUGIN_CALL_TIMEOUT_MS)",
    doc: "A call that takes longer fails with `plugin_timeout`; the plugin's worker is then terminated and started " +
      "again (a hung plugin never blocks the gateway)."
  })
})

declare module "../../layers/settings.ts" {
  /** Enters the plugin settings into the settings type (layers/config.ts `GatewaySettings`). */
  interface SettingsRegistry {
    readonly plugins: typeof PluginsSettings.settings
  }
}
