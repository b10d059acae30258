/**
 * The auth-profiles subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Layer } from "effect"
import { SecretsLive } from "../secrets/index.ts"
import { AuthProfiles } from "./AuthProfiles.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { AuthProfilesContract } from "./contract.ts"
import { AuthProfilesHttp, AuthProfilesSwitch } from "./transport/http.ts"
import { AuthProfilesTables } from "./tables.ts"
import { AuthProfilesSettings } from "./settings.ts"

/** Auth profiles and session pins (docs/auth-profiles.md) over the secrets subsystem. */
export const AuthProfilesLive = AuthProfiles.layer.pipe(Layer.provide(SecretsLive))

/**
 * The auth-profiles subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const AuthProfilesSubsystem: Subsystem<typeof AuthProfilesContract, typeof AuthProfilesLive, typeof AuthProfilesHttp, never, typeof AuthProfilesSettings> = subsystem({
  contract: AuthProfilesContract,
  layer: AuthProfilesLive,
  http: [AuthProfilesHttp],
  switches: [AuthProfilesSwitch],
  tables: [...AuthProfilesTables],
  settings: [AuthProfilesSettings]
})
