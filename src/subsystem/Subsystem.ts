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
import type { SettingsGroup } from "../../layers/settings.ts"
import type { TableDeclaration } from "../../layers/storage/table.ts"
import type { RouteEntry } from "../http/authorization.ts"
import type { HttpGroupSwitch } from "../http/middleware.ts"
import type { WsHandlerGroup } from "../ws/dispatch.ts"
import type { Contract } from "./contract.ts"

export { type Contract, contract } from "./contract.ts"

/**
 * Routes a subsystem serves on the gateway's `HttpRouter` outside
 * `GatewayApi`, because another protocol owns them (the MCP endpoint,
 * `McpServer.layerHttp`): the layer that adds them to the router, and their
 * access rules. The global middleware (src/http/middleware.ts) authenticates
 * and authorizes them with that access (as the planned and undeclared
 * routes), and names them by their template in metrics and spans.
 */
export interface RouterRoutes<R extends Layer.Any = Layer.Any> {
  /** Adds the routes to the `HttpRouter` (needs it, and whatever services its handlers use). */
  readonly layer: R
  /** One entry per method and path it serves. */
  readonly access: ReadonlyArray<RouteEntry>
}

/** A subsystem: its contract and what the server needs of it. */
export interface Subsystem<
  C extends Contract = Contract,
  L extends Layer.Any = Layer.Any,
  H extends Layer.Any = Layer.Any,
  W extends WsHandlerGroup<any> = WsHandlerGroup<any>,
  S extends SettingsGroup = SettingsGroup,
  R extends Layer.Any = Layer.Any
> {
  readonly contract: C
  /** Its services, wired for production (needs only `GatewayConfig`, the storage and the root's shared ports). */
  readonly layer: L
  /** Its HTTP handlers: one `HttpApiBuilder.group` layer per group of {@link Contract.http}. */
  readonly http: ReadonlyArray<H>
  /** Which of its HTTP groups a setting switches off (they answer 404 after authorization). */
  readonly switches: ReadonlyArray<HttpGroupSwitch>
  /** Its routes outside `GatewayApi` ({@link RouterRoutes}; e.g. `/mcp`). */
  readonly routes: ReadonlyArray<RouterRoutes<R>>
  /** Its WebSocket handlers, bound to the types of {@link Contract.ws}. */
  readonly ws: ReadonlyArray<W>
  /** The tables its migrations create (services/<x>/tables.ts): the snapshot set is derived from these. */
  readonly tables: ReadonlyArray<TableDeclaration>
  /**
   * Its settings declarations (services/<x>/settings.ts), if it has any. Typed by `typeof` (`S`) so that the
   * descriptor's declaration file loads the settings file, whose `SettingsRegistry` entry types `GatewaySettings`
   * for programs that use the packed declarations.
   */
  readonly settings: ReadonlyArray<S>
  /** The gateway-wide audit chains its decisions join (docs/audit.md "Chains"). */
  readonly auditChains: ReadonlyArray<string>
}

/** Declares a subsystem; omitted parts are empty. */
export const subsystem = <
  C extends Contract,
  L extends Layer.Any,
  H extends Layer.Any = never,
  W extends WsHandlerGroup<any> = never,
  S extends SettingsGroup = never,
  R extends Layer.Any = never
>(options: {
  readonly contract: C
  readonly layer: L
  readonly http?: ReadonlyArray<H>
  readonly switches?: ReadonlyArray<HttpGroupSwitch>
  readonly routes?: ReadonlyArray<RouterRoutes<R>>
  readonly ws?: ReadonlyArray<W>
  readonly tables?: ReadonlyArray<TableDeclaration>
  readonly settings?: ReadonlyArray<S>
  readonly auditChains?: ReadonlyArray<string>
}): Subsystem<C, L, H, W, S, R> => ({
  contract: options.contract,
  layer: options.layer,
  http: options.http ?? [],
  switches: options.switches ?? [],
  routes: options.routes ?? [],
  ws: options.ws ?? [],
  tables: options.tables ?? [],
  settings: options.settings ?? [],
  auditChains: options.auditChains ?? []
})
