/**
 * The contracts of the routes the composition root serves itself
 * (src/subsystem/Subsystem.ts): the JSON Schema catalog of every wire schema
 * (`contracts`) and the gateway's own routes (`gateway`: `/healthz`,
 * `/openapi.json`, `/ui`).
 *
 * @module
 */
import { contract } from "../../subsystem/contract.ts"
import { ContractsApi } from "./catalogApi.ts"
import { DocsApi } from "./docsApi.ts"
import { HealthApi } from "./healthApi.ts"
import { UiApi } from "./uiApi.ts"

/** `GET /contracts/jsonschema/*`. */
export const CatalogContract = contract({ name: "contracts", http: [ContractsApi] })

/** `/healthz`, `/openapi.json`, `/ui`. */
export const GatewayRoutesContract = contract({ name: "gateway", http: [HealthApi, DocsApi, UiApi] })
