/**
 * The plugin-side API (issue 26 §1; docs/plugins.md "The entry module"):
 * what a plugin's `entry` ES module exports, as types plus one identity
 * helper. This module imports nothing, so a plugin written in TypeScript can
 * `import { definePlugin } from "svc-gateway/plugin"`, and a plain `.mjs`
 * plugin needs nothing at all: it default-exports an object of this shape.
 *
 * ```js
 * // examples/plugins/echo/index.mjs
 * export default {
 *   tools: { echo: (args) => ({ echoed: args.text }) },
 *   commands: { shout: (args) => ({ output: args.toUpperCase() }) },
 *   rpc: { ping: (input) => ({ pong: input }) }
 * }
 * ```
 *
 * Every handler runs in the plugin's own worker thread, may be `async`, and
 * gets at most `SVC_PLUGIN_CALL_TIMEOUT_MS` (default 10 s): a handler that
 * takes longer, or a worker that hangs or dies, fails that call and the
 * worker is restarted; the gateway itself is never blocked. A handler that
 * throws fails the call with the error's message (the agent sees
 * `tool_failed`). Results must be JSON values (anything else is converted
 * with `JSON.stringify`).
 *
 * @module
 */

/** JSON as a handler answers it. */
export type JsonValue = string | number | boolean | null | ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue }

/** What every handler is told about its call. */
export interface PluginCallContext {
  /** The plugin's id (its manifest's `id`). */
  readonly pluginId: string
}

/** A tool call's context: who calls, and the secrets this tool was granted. */
export interface PluginToolContext extends PluginCallContext {
  readonly agentId: string
  readonly sessionId: string
  /**
   * The values of the secret handles the manifest's tool entry names in `secrets` (each also granted by
   * `permissions.secrets`), by handle id; resolved by the gateway for this call only. Never log them.
   */
  readonly secrets: Readonly<Record<string, string>>
}

/** A slash command's context. */
export interface PluginCommandContext extends PluginCallContext {
  readonly agentId: string
}

/** A tool handler: the model's arguments (shaped by the manifest's `parameters`, not validated by the gateway: check them) → the result. */
export type PluginToolHandler = (args: Record<string, unknown>, context: PluginToolContext) => unknown

/** A command handler: the text after `/<name> ` → the output line (or `{output, data?}`). */
export type PluginCommandHandler = (
  args: string,
  context: PluginCommandContext
) => string | { readonly output: string; readonly data?: unknown } | Promise<string | { readonly output: string; readonly data?: unknown }>

/** An RPC route handler: the request's JSON body (POST/PUT/PATCH) or query (GET/DELETE) → the JSON answer. */
export type PluginRpcHandler = (input: unknown, context: PluginCallContext) => unknown

/**
 * What a plugin's entry exports (as its default export, or as the named exports `tools`, `commands`, `rpc`).
 * Each key names the manifest's contribution it serves: `contributes.tools[].name`, `contributes.commands[].name`,
 * `contributes.routes[].name`. A contribution the manifest lists without a handler fails the plugin's load.
 */
export interface PluginDefinition {
  readonly tools?: Readonly<Record<string, PluginToolHandler>>
  readonly commands?: Readonly<Record<string, PluginCommandHandler>>
  readonly rpc?: Readonly<Record<string, PluginRpcHandler>>
}

/** Types a plugin definition (answers it unchanged). */
export const definePlugin = <const P extends PluginDefinition>(plugin: P): P => plugin
