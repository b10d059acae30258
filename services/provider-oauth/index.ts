/**
 * The provider-oauth subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { AuthProfilesLive } from "../auth-profiles/index.ts"
import { SecretsLive } from "../secrets/index.ts"
import { ProviderOAuth } from "./ProviderOAuth.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { ProviderOauthContract } from "./contract.ts"
import { ProviderOAuthHttp } from "./transport/http.ts"
import { ProviderOAuthTables } from "./tables.ts"
import { ProviderOAuthSettings } from "./settings.ts"

/**
 * Provider OAuth (docs/provider-oauth.md): with auth profiles on,
 * `ProviderOAuth.layer` over the auth profiles and the secret store; off,
 * authorize answers 404 for every provider.
 */
export const ProviderOAuthLive = Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
  settings.authProfilesEnabled
    ? ProviderOAuth.layer.pipe(Layer.provide(AuthProfilesLive), Layer.provide(SecretsLive))
    : ProviderOAuth.disabled("auth profiles are disabled (SVC_AUTH_PROFILES=off)")))

/**
 * The provider-oauth subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const ProviderOauthSubsystem: Subsystem<typeof ProviderOauthContract, typeof ProviderOAuthLive, typeof ProviderOAuthHttp, never, typeof ProviderOAuthSettings> = subsystem({
  contract: ProviderOauthContract,
  layer: ProviderOAuthLive,
  http: [ProviderOAuthHttp],
  tables: [...ProviderOAuthTables],
  settings: [ProviderOAuthSettings]
})
