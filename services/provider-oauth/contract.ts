/**
 * The provider-oauth subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { contract } from "../../src/subsystem/contract.ts"
import { ProviderOAuthApi } from "./transport/httpApi.ts"

/** The provider-oauth subsystem's contract. */
export const ProviderOauthContract = contract({ name: "provider-oauth", http: [ProviderOAuthApi] })
