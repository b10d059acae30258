/**
 * Wire schemas of the plugin routes (gateway-api.md "Plugins"; reference
 * §7.7; docs/plugins.md "Routes"): `GET /plugins` →
 * `{status: "ok", plugins, errors}`, `GET /plugins/:id` →
 * `{status: "ok", plugin}`.
 *
 * @module
 */
import { Schema } from "effect"
import { ManifestCommand, ManifestMcpServer, ManifestPermissions, ROUTE_SCOPES } from "./manifest.ts"

/** A contributed tool as listed: its manifest name, the agent tool name and the policy tool id. */
export const PluginToolInfo = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  /** `plugin_<id>_<name>`: what the model calls. */
  tool_name: Schema.String,
  /** `plugin.<id>.<name>`: what the policy bundle governs. */
  tool_id: Schema.String,
  secrets: Schema.Array(Schema.String)
})

/** A route of the plugin's RPC router: its path and the scope a device token needs. */
export const PluginRouteInfo = Schema.Struct({
  name: Schema.String,
  path: Schema.String,
  scope: Schema.Literals(ROUTE_SCOPES),
  description: Schema.optionalKey(Schema.String)
})

/** What a plugin contributes. */
export const PluginContributions = Schema.Struct({
  tools: Schema.Array(PluginToolInfo),
  commands: Schema.Array(ManifestCommand),
  routes: Schema.Array(PluginRouteInfo),
  mcp_servers: Schema.Array(ManifestMcpServer)
})

/**
 * Whether the plugin's files are pinned: `verified` (the lock's digest matches the files) or `unlocked` (no lock
 * file, loaded because `SVC_PLUGINS_ALLOW_UNLOCKED=1`). A mismatch is never loaded (an `integrity_mismatch` error).
 */
export const PluginIntegrity = Schema.Struct({
  state: Schema.Literals(["verified", "unlocked"]),
  /** The digest of the files now (docs/plugins.md "Lock file and integrity"). */
  integrity_sha256: Schema.String
})

/** The lock's record of the install: where it came from, when it was pinned and at which version. */
export const PluginInstall = Schema.Struct({
  source: Schema.optionalKey(Schema.String),
  recorded_at: Schema.String,
  pinned_version: Schema.String
})

/** The plugin's worker: `running`, `restarting` after a crash or timeout, `failed` (given up), `none` (no entry). */
export const PluginWorkerInfo = Schema.Struct({
  status: Schema.Literals(["running", "restarting", "failed", "none"]),
  restarts: Schema.Number,
  last_error: Schema.optionalKey(Schema.String)
})

/** A loaded plugin. */
export const PluginRecord = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  version: Schema.String,
  description: Schema.optionalKey(Schema.String),
  entry: Schema.optionalKey(Schema.String),
  contributions: PluginContributions,
  permissions: ManifestPermissions,
  config_schema: Schema.Record(Schema.String, Schema.Unknown),
  install: Schema.optionalKey(PluginInstall),
  integrity: PluginIntegrity,
  worker: PluginWorkerInfo,
  /** ISO-8601 UTC. */
  loaded_at: Schema.String,
  source_dir: Schema.String
})
export type PluginRecord = typeof PluginRecord.Type

/** Why a plugin directory was not loaded (or its worker gave up). */
export const PluginLoadError = Schema.Struct({
  /** `invalid_manifest`, `no_manifest`, `id_mismatch`, `unsafe_directory`, `unlocked`, `invalid_lock`, `integrity_mismatch`, `load_failed`. */
  error: Schema.String,
  message: Schema.String,
  source_dir: Schema.String,
  plugin_id: Schema.optionalKey(Schema.String),
  /** The file the problem is in (the manifest, the lock), when there is one. */
  file: Schema.optionalKey(Schema.String),
  /** 1-based, when known. */
  line: Schema.optionalKey(Schema.Number)
})
export type PluginLoadError = typeof PluginLoadError.Type

/** `GET /plugins`. */
export const PluginListResponse = Schema.Struct({
  status: Schema.Literal("ok"),
  plugins: Schema.Array(PluginRecord),
  errors: Schema.Array(PluginLoadError)
})

/** `GET /plugins/:id`. */
export const PluginDetailResponse = Schema.Struct({ status: Schema.Literal("ok"), plugin: PluginRecord })
