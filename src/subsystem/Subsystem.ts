/**
 * One descriptor per subsystem (docs/architecture.md "Subsystems"): the value
 * a subsystem's folder exports (`services/<x>/index.ts` → `<X>Subsystem`)
 * holding everything the composition root (src/app/) needs of it, so that
 * adding a subsystem is one folder plus one line in the root's list.
 *
 * - {@link Contract} (`services/<x>/contract.ts`): the schema-only part — its
 *   HTTP group declaration, its WebSocket request types and its events. The
 *   clients (src/client/, in Node, Deno and browsers) load contracts only,
 *   never server code; `GatewayApi`, the WS dispatch table and the client's
 *   typed maps are derived from the list of contracts (src/app/contracts.ts).
 * - {@link Subsystem} (`services/<x>/index.ts`): the contract plus the server
 *   parts — its service layer (wired: it provides its own dependencies and
 *   needs only the root's infrastructure), its HTTP handler layer
 *   (`HttpApiBuilder.group`), its WS handlers, its tables (migrations and the
 *   snapshot set), its settings declarations and the gateway-wide audit chains
 *   it writes.
 *
 * @module
 */
import type { Layer } from "effect"
import type { HttpApiGroup } from "effect/http-api"
import type { SettingsGroup } from "../../layers/settings.ts"
import type { TableDeclaration } from "../../layers/storage/table.ts"
import type { AnyGatewayEvent } from "../../services/ws-sessions/GatewayEvent.ts"
import type { AnyWsMessage } from "../ws/api/message.ts"
import type { WsHandlerGroup } from "../ws/dispatch.ts"

/** The schema-only part of a subsystem: what clients and the API derivations need. */
export interface Contract<
  Name extends string = string,
  Http extends HttpApiGroup.Constraint = HttpApiGroup.Constraint,
  Ws extends AnyWsMessage = AnyWsMessage,
  Events extends AnyGatewayEvent = AnyGatewayEvent
> {
  /** The subsystem's name (its folder under `services/`, e.g. `approvals`). */
  readonly name: Name
  /** Its HTTP endpoints (one `HttpApiGroup`, or none). */
  readonly http: ReadonlyArray<Http>
  /** The WebSocket request types it handles. */
  readonly ws: ReadonlyArray<Ws>
  /** The WebSocket events it publishes. */
  readonly events: ReadonlyArray<Events>
}

/** Declares a contract; omitted parts are empty. */
export const contract = <
  const Name extends string,
  Http extends HttpApiGroup.Constraint = never,
  Ws extends AnyWsMessage = never,
  Events extends AnyGatewayEvent = never
>(options: {
  readonly name: Name
  readonly http?: ReadonlyArray<Http>
  readonly ws?: ReadonlyArray<Ws>
  readonly events?: ReadonlyArray<Events>
}): Contract<Name, Http, Ws, Events> => ({
  name: options.name,
  http: options.http ?? [],
  ws: options.ws ?? [],
  events: options.events ?? []
})

/** A subsystem: its contract and what the server needs of it. */
export interface Subsystem<
  C extends Contract = Contract,
  L extends Layer.Any = Layer.Any,
  H extends Layer.Any = Layer.Any,
  R = any
> {
  readonly contract: C
  /** Its services, wired for production (needs only `GatewayConfig`, the storage and the root's shared ports). */
  readonly layer: L
  /** Its HTTP handlers: one `HttpApiBuilder.group` layer per group of {@link Contract.http}. */
  readonly http: ReadonlyArray<H>
  /** Its WebSocket handlers, bound to the types of {@link Contract.ws}. */
  readonly ws: ReadonlyArray<WsHandlerGroup<R>>
  /** The tables its migrations create (services/<x>/tables.ts): the snapshot set is derived from these. */
  readonly tables: ReadonlyArray<TableDeclaration>
  /** Its settings declarations (services/<x>/settings.ts), if it has any. */
  readonly settings: ReadonlyArray<SettingsGroup>
  /** The gateway-wide audit chains its decisions join (docs/audit.md "Chains"). */
  readonly auditChains: ReadonlyArray<string>
}

/** Declares a subsystem; omitted parts are empty. */
export const subsystem = <
  C extends Contract,
  L extends Layer.Any,
  H extends Layer.Any = never,
  R = never
>(options: {
  readonly contract: C
  readonly layer: L
  readonly http?: ReadonlyArray<H>
  readonly ws?: ReadonlyArray<WsHandlerGroup<R>>
  readonly tables?: ReadonlyArray<TableDeclaration>
  readonly settings?: ReadonlyArray<SettingsGroup>
  readonly auditChains?: ReadonlyArray<string>
}): Subsystem<C, L, H, R> => ({
  contract: options.contract,
  layer: options.layer,
  http: options.http ?? [],
  ws: options.ws ?? [],
  tables: options.tables ?? [],
  settings: options.settings ?? [],
  auditChains: options.auditChains ?? []
})
