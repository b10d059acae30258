/**
 * The messenger subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Layer } from "effect"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { AgentRepo } from "../agent/AgentRepo.ts"
import { AgentRuntime } from "../agent/AgentRuntime.ts"
import { SessionSettingsRepo } from "../agent/SessionSettingsRepo.ts"
import { Approvals } from "../approvals/Approvals.ts"
import { AuthProfilesLive } from "../auth-profiles/index.ts"
import { RoutingConfigService } from "../routing/RoutingConfigService.ts"
import { ChatApprovals } from "./ChatApprovals.ts"
import { MessengerContract } from "./contract.ts"
import { Deliveries } from "./Deliveries.ts"
import { InboxRepo } from "./InboxRepo.ts"
import { InboxWorker } from "./InboxWorker.ts"
import { MessengerClient } from "./MessengerClient.ts"
import { Wakes } from "../backplane/wakes.ts"
import { MessengerIngress } from "./MessengerIngress.ts"
import { MessengerSettings } from "./settings.ts"
import { MessengerTables } from "./tables.ts"
import { MessengerHttp } from "./transport/http.ts"

/**
 * The ingress, the inbox worker, the chat approvals and the deliveries, over the agent runtime (the agent
 * subsystem's instance: layers are built once per graph), approvals and the routing configuration.
 */
export const MessengerLive = MessengerIngress.layerNoDeps.pipe(
  Layer.provideMerge(ChatApprovals.layerNoDeps),
  Layer.provideMerge(InboxWorker.layerNoDeps.pipe(Layer.provide(Wakes.layer))),
  Layer.provideMerge(Deliveries.layer),
  Layer.provideMerge(MessengerClient.layer),
  Layer.provide(InboxRepo.layer),
  Layer.provide(SessionSettingsRepo.layer),
  Layer.provide(AgentRepo.layer),
  Layer.provide(Approvals.layer),
  Layer.provide(RoutingConfigService.layer),
  Layer.provide(AgentRuntime.layer.pipe(Layer.provide(AuthProfilesLive)))
)

/** The messenger subsystem (src/subsystem/Subsystem.ts): what the composition root needs of it. */
export const MessengerSubsystem: Subsystem<
  typeof MessengerContract,
  typeof MessengerLive,
  typeof MessengerHttp,
  never,
  typeof MessengerSettings
> = subsystem({
  contract: MessengerContract,
  layer: MessengerLive,
  http: [MessengerHttp],
  tables: [...MessengerTables],
  settings: [MessengerSettings]
})
