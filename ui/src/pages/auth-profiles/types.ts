/**
 * Auth profile and pin shapes, and the secret handles profiles name, from the
 * declarations the server uses (services/auth-profiles/schema.ts,
 * services/secrets/schema.ts).
 */
export type { SecretHandle } from "../../../../services/secrets/schema.ts"
export type {
  AuthProfile,
  AuthProfileCreateRequest,
  AuthProfileSecretHandles,
  AuthProfileType,
  SessionProviderPin
} from "../../../../services/auth-profiles/schema.ts"
