/** The cluster subsystem's migrations, in id order (applied by `ClusterKey.layer`). */
import { gatewayMasterKey } from "./0001_gateway_master_key.ts"

/** Every cluster migration. */
export const clusterMigrations = [gatewayMasterKey] as const
