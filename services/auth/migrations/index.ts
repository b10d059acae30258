/** The auth subsystem's migrations, in id order (applied by `DeviceTokenRepo.layer`). */
import { deviceTokens } from "./0001_device_tokens.ts"

/** Every auth migration. */
export const authMigrations = [deviceTokens] as const
