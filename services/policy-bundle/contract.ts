/**
 * The policy-bundle subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { PolicyBundleApi } from "./transport/httpApi.ts"
import { PolicyBundleEvents } from "./events.ts"

/** The policy-bundle subsystem's contract. */
export const PolicyBundleContract = contract({ name: "policy-bundle", http: [PolicyBundleApi], events: PolicyBundleEvents })
