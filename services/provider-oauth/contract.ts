/**
 * The provider-oauth subsystem's contract (src/subsystem/Subsystem.ts): its HTTP endpoints, WebSocket request
 * types and events — schemas only, what the clients load.
 *
 * @module
 */
import { type Contract, contract } from "../../src/subsystem/contract.ts"
import { ProviderOAuthApi } from "./transport/httpApi.ts"

/** The provider-oauth subsystem's contract. */
export const ProviderOauthContract: Contract<"provider-oauth", typeof ProviderOAuthApi, never, never> = contract({ name: "provider-oauth", http: [ProviderOAuthApi] })
