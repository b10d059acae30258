/**
 * The plugins subsystem's contract (src/subsystem/Subsystem.ts): its HTTP
 * group and its events — schemas only, what the clients load. The plugins'
 * RPC routes speak each plugin's own JSON, outside `GatewayApi`.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { PluginsEvents } from "./events.ts"
import { PluginsApi } from "./transport/httpApi.ts"

/** The plugins subsystem's contract. */
export const PluginsContract: Contract<"plugins", typeof PluginsApi, never, (typeof PluginsEvents)[number]> = contract({
  name: "plugins",
  http: [PluginsApi],
  events: [...PluginsEvents]
})
