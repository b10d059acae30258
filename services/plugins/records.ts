/**
 * A loaded plugin as the routes show it (schema.ts `PluginRecord`): its
 * manifest's fields, its contributions with the names they take (agent tool
 * name, policy tool id, route path and scope), its permissions (absent lists
 * empty), its lock and integrity, and its worker's state.
 *
 * @module
 */
import type { FoundPlugin } from "./discovery.ts"
import type { PluginRecord } from "./schema.ts"

/** The policy tool id and the agent tool name of a plugin's tool. */
export const pluginToolNames = (pluginId: string, tool: string) => ({
  toolId: `plugin.${pluginId}.${tool}`,
  toolName: `plugin_${pluginId}_${tool}`.replace(/[^A-Za-z0-9_-]/g, "_")
})

/** The worker's state as the host keeps it. */
export interface WorkerState {
  readonly status: PluginRecord["worker"]["status"]
  readonly restarts: number
  readonly lastError: string | undefined
}

/** The record of a plugin that passed discovery, loaded at `loadedAt` (ISO), with its worker's state. */
export const pluginRecord = (found: FoundPlugin, loadedAt: string, worker: WorkerState): PluginRecord => {
  const m = found.manifest
  const contributes = m.contributes ?? {}
  return {
    id: m.id,
    name: m.name,
    version: m.version,
    ...(m.description === undefined ? {} : { description: m.description }),
    ...(m.entry === undefined ? {} : { entry: m.entry }),
    contributions: {
      tools: (contributes.tools ?? []).map((tool) => {
        const names = pluginToolNames(m.id, tool.name)
        return { name: tool.name, description: tool.description, tool_name: names.toolName, tool_id: names.toolId, secrets: tool.secrets ?? [] }
      }),
      commands: contributes.commands ?? [],
      routes: (contributes.routes ?? []).map((route) => ({
        name: route.name,
        path: `/plugins/${m.id}/rpc/${route.name}`,
        scope: route.scope ?? "operator.admin",
        ...(route.description === undefined ? {} : { description: route.description })
      })),
      mcp_servers: contributes.mcp_servers ?? []
    },
    permissions: { tools: [], network_egress: [], secrets: [], db: false, ...m.permissions },
    config_schema: m.config_schema,
    ...(found.lock === undefined
      ? {}
      : {
        install: {
          ...(found.lock.source === undefined ? {} : { source: found.lock.source }),
          recorded_at: found.lock.recorded_at,
          pinned_version: found.lock.pinned_version
        }
      }),
    integrity: { state: found.lock === undefined ? "unlocked" : "verified", integrity_sha256: found.integrity },
    worker: { status: worker.status, restarts: worker.restarts, ...(worker.lastError === undefined ? {} : { last_error: worker.lastError }) },
    loaded_at: loadedAt,
    source_dir: found.dir
  }
}
