/** The messenger migrations, in id order (applied by `InboxRepo.layer`). */
import { messengerInbox } from "./0001_messenger_inbox.ts"

/** Every messenger migration. */
export const messengerMigrations = [messengerInbox] as const
