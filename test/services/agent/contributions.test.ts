/**
 * The agent's registry of contributed tools (services/agent/contributions.ts):
 * one name is one tool. Plugin and MCP names can meet (`plugin_a_b_c` is both
 * plugin `a`'s tool `b_c` and plugin `a_b`'s tool `c`); the toolkit keeps the
 * last tool of a name while calls ran the first, so the model was shown one
 * tool's description and arguments while another ran. The registry offers the
 * first source's tool only.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Tool } from "effect/ai"
import { AgentContributions, type ContributedTool } from "../../../services/agent/contributions.ts"

const tool = (name: string, toolId: string): ContributedTool => ({
  tool: Tool.dynamic(name, { description: toolId, parameters: { type: "object", properties: {} } }),
  toolId,
  matchTarget: () => "",
  run: () => Effect.succeed(toolId)
})

describe("AgentContributions", () => {
  it.effect("offers one tool per name: the first source's (sources in order), also with live providers", () =>
    Effect.gen(function*() {
      const registry = yield* AgentContributions
      yield* registry.setTools("plugin:a_b", [tool("plugin_a_b_c", "plugin.a_b.c"), tool("plugin_a_b_d", "plugin.a_b.d")])
      yield* registry.setTools("plugin:a", [tool("plugin_a_b_c", "plugin.a.b_c")])
      const ids = () => registry.tools().map((t) => [t.tool.name, t.toolId])
      expect(ids()).toEqual([["plugin_a_b_c", "plugin.a.b_c"], ["plugin_a_b_d", "plugin.a_b.d"]])
      yield* registry.setProvider("node:x", () => [tool("plugin_a_b_d", "node.d"), tool("node_e", "node.e")])
      expect(ids()).toEqual([["plugin_a_b_c", "plugin.a.b_c"], ["plugin_a_b_d", "plugin.a_b.d"], ["node_e", "node.e"]])
      // The shadowed tool is offered once the one holding its name goes.
      yield* registry.remove("plugin:a")
      expect(ids()).toEqual([["plugin_a_b_c", "plugin.a_b.c"], ["plugin_a_b_d", "plugin.a_b.d"], ["node_e", "node.e"]])
    }).pipe(Effect.provide(AgentContributions.layer)))
})
