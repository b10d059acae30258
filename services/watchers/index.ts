/**
 * The watchers subsystem's descriptor (docs/architecture.md "Subsystems").
 *
 * @module
 */
import { Layer } from "effect"
import { SecretsLive } from "../secrets/index.ts"
import { Watchers } from "./Watchers.ts"
import { WebhookTrigger } from "./webhook/WebhookTrigger.ts"
import { type Subsystem, subsystem } from "../../src/subsystem/Subsystem.ts"
import { WatchersContract } from "./contract.ts"
import { WatchersHttp } from "./transport/http.ts"
import { WatchersTables } from "./tables.ts"
import { WatchersSettings } from "./settings.ts"

/**
 * Watchers and their signed webhook trigger (docs/watchers.md,
 * docs/automation.md) over the secrets subsystem: a webhook watcher's secret
 * handle is checked when it is created and resolved at each call.
 */
export const WatchersLive = WebhookTrigger.layer.pipe(Layer.provideMerge(Watchers.layer), Layer.provide(SecretsLive))

/**
 * The watchers subsystem (src/subsystem/Subsystem.ts): what the composition root
 * (src/app/subsystems.ts) needs of it.
 */
export const WatchersSubsystem: Subsystem<typeof WatchersContract, typeof WatchersLive, typeof WatchersHttp, never, typeof WatchersSettings> = subsystem({
  contract: WatchersContract,
  layer: WatchersLive,
  http: [WatchersHttp],
  tables: [...WatchersTables],
  settings: [WatchersSettings]
})
