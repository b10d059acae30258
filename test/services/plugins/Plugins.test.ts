/**
 * The plugin host over its ports (issue 26 §1; docs/plugins.md
 * "Permissions", "MCP servers"): a tool receives exactly the secrets its
 * manifest entry names (resolved through the secrets subsystem for that call,
 * with the plugin's purpose), a handle that does not resolve fails the call
 * as `secret_unavailable` without reaching the plugin, a handler's error is
 * `tool_failed`; the declared MCP servers are handed out, not connected; with
 * plugins off nothing is loaded; the load and each call are on the
 * `gateway.plugins` audit chain. Needs the bundle's plugin worker.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { GatewayConfig } from "../../../layers/config.ts"
import { AgentContributions } from "../../../services/agent/contributions.ts"
import { AuditLog } from "../../../services/audit/AuditLog.ts"
import { Plugins } from "../../../services/plugins/Plugins.ts"
import { SecretResolver } from "../../../services/secrets/SecretStore.ts"
import { NotFound } from "../../../services/shared/errors.ts"
import { sqliteMemory } from "../../support/databases.ts"
import { testSettings } from "../../support/gateway.ts"
import { manifest, writePlugin } from "../../support/pluginHome.ts"

const resolutions: Array<readonly [string, string]> = []
const Secrets = Layer.succeed(SecretResolver, SecretResolver.of({
  resolve: (handle, purpose) =>
    Effect.suspend(() => {
      if (handle !== "h-granted") return Effect.fail(new NotFound({ message: `secret handle ${handle} not found` }))
      resolutions.push([handle, purpose])
      return Effect.succeed(Redacted.make("s3cret"))
    }),
  resolveChecked: () => Effect.die("not used by plugins")
}))

const host = (home: string, pluginsEnabled = true) =>
  Layer.mergeAll(Plugins.layer, AgentContributions.layer).pipe(
    Layer.provide(Secrets),
    Layer.provideMerge(AuditLog.layer),
    Layer.provide(Layer.succeed(GatewayConfig, testSettings({ pluginsEnabled, home }))),
    Layer.provide(sqliteMemory.make())
  )

const vault = async () => {
  const home = mkdtempSync(join(tmpdir(), "svc-plugins-host-"))
  await writePlugin(home, "vault", {
    "plugin.yml": manifest("vault", [
      "entry: index.mjs",
      "contributes:",
      "  tools:",
      "    - {name: peek, description: Shows what it was given, secrets: [h-granted]}",
      "    - {name: gone, description: Needs a secret that does not resolve, secrets: [h-gone]}",
      "    - {name: boom, description: Throws}",
      "  mcp_servers:",
      "    - {name: files, command: mcp-files, args: [--root, /srv]}",
      "    - {name: search, url: 'http://127.0.0.1:9/mcp'}",
      "permissions: {secrets: [h-granted, h-gone]}"
    ]),
    "index.mjs": [
      "export default { tools: {",
      "  peek: (args, context) => ({ secrets: context.secrets, env: Object.keys(process.env).length, agent: context.agentId }),",
      "  gone: () => ({ reached: true }),",
      "  boom: () => { throw new Error('kaboom') }",
      "} }",
      ""
    ].join("\n")
  })
  return home
}

const context = { agentId: "a1", workspaceId: "default", sessionId: "s1", sessionKey: "agent:a1:operator:t" }

describe("Plugins", () => {
  it.effect("gives a tool only its granted secrets, refuses an unresolvable one, and maps a handler's error", () =>
    Effect.gen(function*() {
      const contributions = yield* AgentContributions
      const tool = (name: string) => contributions.tools().find((t) => t.tool.name === `plugin_vault_${name}`)!
      expect(contributions.tools().map((t) => t.toolId)).toEqual(["plugin.vault.peek", "plugin.vault.gone", "plugin.vault.boom"])
      // The worker sees no environment variable of the gateway.
      expect(yield* tool("peek").run({}, context)).toEqual({ secrets: { "h-granted": "s3cret" }, env: 0, agent: "a1" })
      expect(resolutions).toEqual([["h-granted", "plugin:vault:peek"]])
      expect(yield* Effect.flip(tool("gone").run({}, context))).toEqual({
        error: "secret_unavailable",
        message: "secret h-gone is not available to plugin tools"
      })
      expect(yield* Effect.flip(tool("boom").run({}, context))).toEqual({ error: "tool_failed", message: "kaboom" })
      expect(contributions.health()).toMatchObject([{ source: "plugin:vault", status: "ready", tools: 3 }])

      // Recorded on gateway.plugins: the load and each call, never the arguments, results or secrets.
      const chain = yield* (yield* AuditLog).events("gateway.plugins")
      const actions = chain.map((event) => event.action as Record<string, unknown>)
      expect(actions.map((a) => [a.type, a.state ?? a.outcome])).toEqual([
        ["plugin.lifecycle", "loaded"],
        ["plugin_tool.invoked", "ok"],
        ["plugin_tool.invoked", "error"],
        ["plugin_tool.invoked", "error"]
      ])
      expect(actions[0]).toMatchObject({ plugin_id: "vault", version: "1.0.0", integrity_sha256: expect.stringMatching(/^[0-9a-f]{64}$/) })
      expect(JSON.stringify(actions)).not.toContain("s3cret")

      const plugins = yield* Plugins
      expect(plugins.mcpServers()).toEqual([
        { plugin_id: "vault", source_dir: expect.stringMatching(/plugins\/vault$/), server: { name: "files", command: "mcp-files", args: ["--root", "/srv"] } },
        { plugin_id: "vault", source_dir: expect.stringMatching(/plugins\/vault$/), server: { name: "search", url: "http://127.0.0.1:9/mcp" } }
      ])
    }).pipe(Effect.provide(Layer.unwrap(Effect.map(Effect.promise(vault), (home) => host(home))))), 30_000)

  it.effect("loads nothing while plugins are off", () =>
    Effect.gen(function*() {
      const plugins = yield* Plugins
      expect(yield* plugins.list()).toEqual({ plugins: [], errors: [] })
      expect(plugins.mcpServers()).toEqual([])
      expect((yield* AgentContributions).tools()).toEqual([])
      expect(yield* Effect.flip(plugins.get("vault"))).toBeInstanceOf(NotFound)
    }).pipe(Effect.provide(Layer.unwrap(Effect.map(Effect.promise(vault), (home) => host(home, false))))))
})
