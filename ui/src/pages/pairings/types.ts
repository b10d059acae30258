/** The pairing shapes, from the declarations the server uses (services/pairing/schema.ts). */
export type { Pairing, PairingStatus, TrustLevel } from "../../../../services/pairing/schema.ts"
export type { CapabilityDescriptor } from "../../../../services/ws-sessions/schema.ts"
