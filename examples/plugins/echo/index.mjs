// The entry of the example plugin (docs/plugins.md "The entry module"). It runs in the plugin's own worker thread.
// It imports nothing; `svc-gateway/plugin` types this shape (PluginDefinition) for plugins written in TypeScript.

export default {
  tools: {
    // plugin_echo_echo, governed by the policy bundle as plugin.echo.echo
    echo: (args) => ({ echoed: String(args.text ?? ""), length: String(args.text ?? "").length })
  },
  commands: {
    // /shout <text>
    shout: (args) => ({ output: args.toUpperCase() || "(nothing to shout)" })
  },
  rpc: {
    // POST /plugins/echo/rpc/ping
    ping: (input, context) => ({ pong: true, plugin: context.pluginId, input })
  }
}
