/** The policy-bundle subsystem's migrations, in id order, and the layer that applies them. */
import { Layer } from "effect"
import { migrate } from "../../../layers/storage/migrations.ts"
import { policyBundleTables } from "./0001_policy_bundle.ts"

/** Every policy-bundle migration. */
export const policyBundleMigrations = [policyBundleTables] as const

/**
 * Applies {@link policyBundleMigrations} (bookkeeping table
 * `svc_migrations_policy_bundle`). Both repositories provide it; Effect
 * memoizes the layer, so it runs once per build. Needs a `SqlClient`.
 */
export const PolicyBundleMigrations = Layer.effectDiscard(migrate("policy_bundle", policyBundleMigrations))
