/** The secret handle shape, from the declarations the server uses (services/secrets/schema.ts). */
export type { SecretHandle } from "../../../../services/secrets/schema.ts"
