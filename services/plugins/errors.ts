/**
 * Plugin errors (issue 26 §1; docs/plugins.md "Routes"): the gateway-wide
 * 404 `not_found` and 403 `forbidden`, and what a call into a plugin's
 * worker can end with — 502 `plugin_failed` (its handler threw), 504
 * `plugin_timeout` (it did not answer in time; the worker was restarted) and
 * 503 `plugin_unavailable` (its worker is down or restarting).
 *
 * @module
 */
import { Schema } from "effect"
export { Forbidden, NotFound } from "../shared/errors.ts"

/** 502 `plugin_failed`: the plugin's handler failed (threw, rejected or answered something that is not JSON). */
export class PluginFailed extends Schema.TaggedError<PluginFailed>()(
  "PluginFailed",
  { message: Schema.String },
  { httpApiStatus: 502, errorCode: "plugin_failed" }
) {}

/** 504 `plugin_timeout`: the plugin did not answer within `SVC_PLUGIN_CALL_TIMEOUT_MS`; its worker was restarted. */
export class PluginTimeout extends Schema.TaggedError<PluginTimeout>()(
  "PluginTimeout",
  { message: Schema.String },
  { httpApiStatus: 504, errorCode: "plugin_timeout" }
) {}

/** 503 `plugin_unavailable`: the plugin's worker is down (restarting, or given up after repeated failures). */
export class PluginUnavailable extends Schema.TaggedError<PluginUnavailable>()(
  "PluginUnavailable",
  { message: Schema.String },
  { httpApiStatus: 503, errorCode: "plugin_unavailable" }
) {}

/** Any failure of a call into a plugin. */
export type PluginCallError = PluginFailed | PluginTimeout | PluginUnavailable
