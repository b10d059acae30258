/**
 * The planner subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Layer } from "effect"
import { PlanExecutionLive } from "../workflow/planExecution.ts"
import { Planner } from "./Planner.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { PlannerContract } from "./contract.ts"
import { PlanHttp } from "./transport/http.ts"
import { PlannerTables } from "./tables.ts"

/** The planner over the plan execution of the workflow subsystem. */
const layer = Planner.layer.pipe(Layer.provide(PlanExecutionLive))

/**
 * The planner subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const PlannerSubsystem: Subsystem<typeof PlannerContract, typeof layer, typeof PlanHttp, never> = subsystem({
  contract: PlannerContract,
  layer,
  http: [PlanHttp],
  tables: [...PlannerTables]
})
