/**
 * The policy-bundle subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { PolicyBundleApi } from "./transport/httpApi.ts"
import { PolicyBundleEvents } from "./events.ts"

/** The policy-bundle subsystem's contract. */
export const PolicyBundleContract: Contract<"policy-bundle", typeof PolicyBundleApi, never, (typeof PolicyBundleEvents)[number]> = contract({ name: "policy-bundle", http: [PolicyBundleApi], events: PolicyBundleEvents })
