/** Auth profile and pin shapes, from the declarations the server uses (services/auth-profiles/schema.ts). */
export type {
  AuthProfile,
  AuthProfileCreateRequest,
  AuthProfileSecretHandles,
  AuthProfileType,
  SessionProviderPin
} from "../../../../services/auth-profiles/schema.ts"
