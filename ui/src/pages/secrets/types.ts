/**
 * The secret handle shape, and the auth profiles naming handles, from the
 * declarations the server uses (services/secrets/schema.ts,
 * services/auth-profiles/schema.ts).
 */
export type { SecretHandle } from "../../../../services/secrets/schema.ts"
export type { AuthProfile } from "../../../../services/auth-profiles/schema.ts"
