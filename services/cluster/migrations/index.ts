/** The cluster subsystem's migrations, in id order (applied by `ClusterKey.layer`). */
import { clusterMasterKey } from "./0001_cluster_master_key.ts"

/** Every cluster migration. */
export const clusterMigrations = [clusterMasterKey] as const
