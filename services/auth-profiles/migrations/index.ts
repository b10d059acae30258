/** The auth-profiles subsystem's migrations, in id order (applied by `AuthProfilesRepo.layer`). */
import { authProfilesTables } from "./0001_auth_profiles.ts"

/** Every auth-profiles migration. */
export const authProfilesMigrations = [authProfilesTables] as const
