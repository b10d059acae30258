/**
 * Events of the plugins subsystem (issue 26 §1; reference §5.3 event list),
 * to operator clients holding `operator.admin` (the plugin routes' scope):
 * `plugin.lifecycle` when a plugin is loaded, fails (refused at load, a
 * worker that crashed or hung, restarted or given up) or is unloaded, and
 * `plugin_tool.invoked` after each call of a contributed tool.
 *
 * @module
 */
import { Schema } from "effect"
import { type Audience, make } from "../ws-sessions/GatewayEvent.ts"

/** Clients holding `operator.admin`. */
const OPERATORS_ADMIN: Audience = { roles: ["client"], requiredScopes: ["operator.admin"] }

/** `plugin.lifecycle {plugin_id, state, version?, reason?, restarting?}`. */
export const PluginLifecycle = make("plugin.lifecycle", {
  payload: Schema.Struct({
    plugin_id: Schema.String,
    state: Schema.Literals(["loaded", "failed", "unloaded"]),
    version: Schema.optionalKey(Schema.String),
    /** Why it failed (a failure only). */
    reason: Schema.optionalKey(Schema.String),
    /** A failed worker that is being started again (`false`: given up, its contributions withdrawn). */
    restarting: Schema.optionalKey(Schema.Boolean)
  }),
  audience: OPERATORS_ADMIN
})

/** `plugin_tool.invoked {plugin_id, tool, tool_id, agent_id, session_id, outcome, duration_ms, error?}`. */
export const PluginToolInvoked = make("plugin_tool.invoked", {
  payload: Schema.Struct({
    plugin_id: Schema.String,
    tool: Schema.String,
    tool_id: Schema.String,
    agent_id: Schema.String,
    session_id: Schema.String,
    outcome: Schema.Literals(["ok", "error"]),
    duration_ms: Schema.Number,
    /** The failure's code (`tool_failed`, `plugin_timeout`, `plugin_unavailable`, `secret_unavailable`). */
    error: Schema.optionalKey(Schema.String)
  }),
  audience: OPERATORS_ADMIN
})

/** Every event type of this subsystem. */
export const PluginsEvents = [PluginLifecycle, PluginToolInvoked] as const
