/** The routing subsystem's migrations, in id order (applied by `RoutingConfigRepo.layer`). */
import { routingConfigsTable } from "./0001_routing_configs.ts"

/** Every routing migration. */
export const routingMigrations = [routingConfigsTable] as const
