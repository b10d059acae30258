/**
 * The audit chain of plugin decisions (docs/audit.md "Chains";
 * docs/plugins.md "Events"): `plugin.lifecycle` (loaded, failed, unloaded)
 * and `plugin_tool.invoked` (never a tool's arguments, result or secrets)
 * join `gateway.plugins`.
 *
 * @module
 */
import { GATEWAY_CHAIN_PREFIX } from "../domain-events/chains.ts"

/** `gateway.plugins`: plugins loaded, failed and unloaded, and each call of a plugin's tool. */
export const PLUGINS_CHAIN = `${GATEWAY_CHAIN_PREFIX}plugins`
