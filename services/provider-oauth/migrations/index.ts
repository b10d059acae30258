/** The provider-oauth subsystem's migrations, in id order (applied by `PendingRepo.layer`). */
import { oauthPendingTable } from "./0001_oauth_pending.ts"

/** Every provider-oauth migration. */
export const providerOAuthMigrations = [oauthPendingTable] as const
