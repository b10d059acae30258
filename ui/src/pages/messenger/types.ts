/** The messenger inbox shapes, from the declarations the server uses (services/messenger/schema.ts). */
export type { DeliveryReceipt, InboxItem, InboxResponse, InboxStatus } from "../../../../services/messenger/schema.ts"
