/**
 * The secrets subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { makeAuthProfileReferences } from "../auth-profiles/AuthProfiles.ts"
import { AuthProfilesRepo } from "../auth-profiles/AuthProfilesRepo.ts"
import { makeWatcherSecretReferences } from "../watchers/secretReferences.ts"
import { WatchersRepo } from "../watchers/WatchersRepo.ts"
import { allSecretReferences, SecretReferences, SecretStore } from "./SecretStore.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { SecretsContract } from "./contract.ts"
import { SecretsHttp } from "./transport/http.ts"
import { SecretsTables } from "./tables.ts"
import { SecretsDbTables } from "../../layers/secrets/tables.ts"
import { SecretsSettings } from "./settings.ts"
import { AuditChains } from "../domain-events/chains.ts"

/** What references secret handles: auth profiles and webhook watchers, told in turn (`allSecretReferences`). */
const SecretReferencesLive = Layer.effect(
  SecretReferences,
  Effect.map(Effect.all([makeAuthProfileReferences, makeWatcherSecretReferences]), allSecretReferences)
).pipe(Layer.provide(AuthProfilesRepo.layer), Layer.provide(WatchersRepo.layer))

/**
 * The secrets subsystem (docs/secrets.md): `Secrets`, `SecretStore` and
 * `SecretResolver` over the provider the settings choose, told about
 * rotation and revocation by the auth profiles and the webhook watchers (`SecretReferencesLive`,
 * inside the same transaction). Layer values are built once per graph, so
 * every subsystem that names this one shares one instance.
 */
export const SecretsLive = SecretStore.layer.pipe(Layer.provide(SecretReferencesLive))

/**
 * The secrets subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const SecretsSubsystem: Subsystem<typeof SecretsContract, typeof SecretsLive, typeof SecretsHttp, never, typeof SecretsSettings> = subsystem({
  contract: SecretsContract,
  layer: SecretsLive,
  http: [SecretsHttp],
  tables: [...SecretsTables, ...SecretsDbTables],
  settings: [SecretsSettings],
  auditChains: [AuditChains.secrets]
})
