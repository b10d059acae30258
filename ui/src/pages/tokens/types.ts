/** Device-token shapes, from the declarations the server uses (services/auth/schema.ts). */
export type { DeviceRole, DeviceTokenIssueRequest, DeviceTokenIssueResponse, Scope } from "../../../../services/auth/schema.ts"
