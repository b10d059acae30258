/**
 * The secret provider the settings choose (`SVC_SECRET_PROVIDER`): `db` (the
 * default) or `env`. Embedders may provide any other `SecretProvider` layer
 * instead (docs/secrets.md "Adding a provider").
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { GatewayConfig } from "../config.ts"
import { DbSecretProvider } from "./dbProvider.ts"
import { EnvSecretProvider } from "./envProvider.ts"

export { DbSecretProvider, makeDbProvider, masterKeyPath } from "./dbProvider.ts"
export { EnvSecretProvider, makeEnvProvider } from "./envProvider.ts"
export * from "./SecretProvider.ts"

/** `db` or `env` from `GatewayConfig.secretProvider`. Needs a `SqlClient` (db). */
export const SecretProviderFromSettings = Layer.unwrap(
  Effect.map(GatewayConfig, (settings) => settings.secretProvider === "env" ? EnvSecretProvider : DbSecretProvider)
)
