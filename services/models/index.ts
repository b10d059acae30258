/**
 * The models subsystem's descriptor (docs/architecture.md "Subsystems"): the
 * model catalog (docs/models.md).
 *
 * @module
 */
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { ModelsContract } from "./contract.ts"
import { Models } from "./Models.ts"
import { ModelsSettings } from "./settings.ts"
import { ModelsTables } from "./tables.ts"
import { ModelsHttp } from "./transport/http.ts"

/**
 * The models subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const ModelsSubsystem: Subsystem<typeof ModelsContract, typeof Models.layer, typeof ModelsHttp, never, typeof ModelsSettings> = subsystem({
  contract: ModelsContract,
  layer: Models.layer,
  http: [ModelsHttp],
  tables: [...ModelsTables],
  settings: [ModelsSettings]
})
