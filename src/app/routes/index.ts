/**
 * The descriptors of the routes the composition root serves itself
 * (src/subsystem/Subsystem.ts): the JSON Schema catalog (`contracts`) and the
 * gateway's own routes (`gateway`: `/healthz`, `/openapi.json`, `/ui`).
 *
 * @module
 */
import { Layer } from "effect"
import { StorageTables } from "../../../layers/storage/tables.ts"
import { type Subsystem, subsystem } from "../../subsystem/Subsystem.ts"
import { ContractsHttp } from "./catalog.ts"
import { CatalogContract, GatewayRoutesContract } from "./contract.ts"
import { DocsHttp } from "./docs.ts"
import { HealthHttp } from "./health.ts"
import { UiHttp } from "./ui.ts"
import { UiAssets } from "./uiAssets.ts"

/** `GET /contracts/jsonschema/*`: the catalog of every contract's wire schemas. */
export const CatalogSubsystem: Subsystem<typeof CatalogContract, typeof Layer.empty, typeof ContractsHttp, never> = subsystem({
  contract: CatalogContract, layer: Layer.empty, http: [ContractsHttp]
})

/**
 * `/healthz`, `/openapi.json`, `/ui` (the console's build, read at start: `UiAssets`); the storage's own bookkeeping
 * tables (left out of snapshots, with the reason).
 */
export const GatewayRoutesSubsystem: Subsystem<typeof GatewayRoutesContract, typeof UiAssets.layer, typeof HealthHttp | typeof DocsHttp | typeof UiHttp, never> = subsystem({
  contract: GatewayRoutesContract,
  layer: UiAssets.layer,
  http: [HealthHttp, DocsHttp, UiHttp],
  tables: StorageTables
})
