/**
 * The planner subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Layer } from "effect"
import { PlanExecutionLive } from "../workflow/planExecution.ts"
import { Planner } from "./Planner.ts"
import { subsystem } from "../../src/subsystem/Subsystem.ts"
import { PlannerContract } from "./contract.ts"
import { PlanHttp } from "./transport/http.ts"
import { PlannerTables } from "./tables.ts"

/**
 * The planner subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const PlannerSubsystem = subsystem({
  contract: PlannerContract,
  layer: Planner.layer.pipe(Layer.provide(PlanExecutionLive)),
  http: [PlanHttp],
  tables: [...PlannerTables]
})
