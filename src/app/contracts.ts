/**
 * The contracts of every subsystem, in one list ({@link Contracts}), and what
 * is derived from them: the HTTP API ({@link GatewayApi}: one declaration per
 * endpoint, grouped by subsystem; routing, authorization, the OpenAPI
 * document and the typed HTTP client come from it, plus `PlannedApi`, the
 * spec's routes declared but not served yet), the WebSocket request types
 * ({@link WsMessages}), and the typed maps of the client SDK. This module and
 * the contracts import schemas only, never server code, so the clients (Node,
 * Deno, browsers) load them.
 *
 * The list is the schema-only twin of the subsystem list of the composition
 * root (src/app/subsystems.ts): a subsystem's contract is listed here in the
 * same position as its descriptor there, and test/app/subsystems.test.ts
 * keeps the two equal.
 *
 * @module
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { ArtifactsContract } from "../../services/artifacts/contract.ts"
import { AgentContract } from "../../services/agent/contract.ts"
import { ApprovalsContract } from "../../services/approvals/contract.ts"
import { AuditContract } from "../../services/audit/contract.ts"
import { AuthProfilesContract } from "../../services/auth-profiles/contract.ts"
import { AuthContract } from "../../services/auth/contract.ts"
import { CanvasContract } from "../../services/canvas/contract.ts"
import { ClusterContract } from "../../services/cluster/contract.ts"
import { DiagnosticsContract } from "../../services/diagnostics/contract.ts"
import { McpClientsContract } from "../../services/mcp-clients/contract.ts"
import { McpContract } from "../../services/mcp/contract.ts"
import { MessengerContract } from "../../services/messenger/contract.ts"
import { MemoryContract } from "../../services/memory/contract.ts"
import { ModelsContract } from "../../services/models/contract.ts"
import { NodesContract } from "../../services/nodes/contract.ts"
import { PairingContract } from "../../services/pairing/contract.ts"
import { PlannerContract } from "../../services/planner/contract.ts"
import { PluginsContract } from "../../services/plugins/contract.ts"
import { PlaybooksContract } from "../../services/playbooks/contract.ts"
import { PolicyBundleContract } from "../../services/policy-bundle/contract.ts"
import { PolicyContract } from "../../services/policy/contract.ts"
import { ProviderOauthContract } from "../../services/provider-oauth/contract.ts"
import { RoutingContract } from "../../services/routing/contract.ts"
import { SecretsContract } from "../../services/secrets/contract.ts"
import { DIAGNOSTIC_PARSE_OPTIONS } from "../../services/shared/decode.ts"
import { SnapshotsContract } from "../../services/snapshots/contract.ts"
import { WatchersContract } from "../../services/watchers/contract.ts"
import { WorkContract } from "../../services/work/contract.ts"
import { WorkflowContract } from "../../services/workflow/contract.ts"
import type { EventMap } from "../../services/ws-sessions/GatewayEvent.ts"
import { SessionsContract } from "../../services/ws-sessions/contract.ts"
import { WsInitiatedRequests } from "../ws/api/initiated.ts"
import type { InitiatedMap, RequestMap } from "../ws/api/message.ts"
import { CatalogContract, GatewayRoutesContract } from "./routes/contract.ts"

export { PlannedApi } from "../http/api/planned.ts"
export { PlannedWsMessages } from "../ws/api/planned.ts"
export { WsInitiatedRequests } from "../ws/api/initiated.ts"

/** Every subsystem's contract, in the order of the composition root's subsystem list. */
export const Contracts: readonly [
  typeof SessionsContract,
  typeof AuthContract,
  typeof PolicyContract,
  typeof PolicyBundleContract,
  typeof ApprovalsContract,
  typeof PairingContract,
  typeof NodesContract,
  typeof PlannerContract,
  typeof SecretsContract,
  typeof AuthProfilesContract,
  typeof ProviderOauthContract,
  typeof WorkflowContract,
  typeof PlaybooksContract,
  typeof WatchersContract,
  typeof SnapshotsContract,
  typeof RoutingContract,
  typeof DiagnosticsContract,
  typeof AuditContract,
  typeof CatalogContract,
  typeof GatewayRoutesContract,
  typeof CanvasContract,
  typeof MemoryContract,
  typeof WorkContract,
  typeof ArtifactsContract,
  typeof AgentContract,
  typeof McpContract,
  typeof McpClientsContract,
  typeof ModelsContract,
  typeof MessengerContract,
  typeof PluginsContract,
  typeof ClusterContract
] = [
  SessionsContract,
  AuthContract,
  PolicyContract,
  PolicyBundleContract,
  ApprovalsContract,
  PairingContract,
  NodesContract,
  PlannerContract,
  SecretsContract,
  AuthProfilesContract,
  ProviderOauthContract,
  WorkflowContract,
  PlaybooksContract,
  WatchersContract,
  SnapshotsContract,
  RoutingContract,
  DiagnosticsContract,
  AuditContract,
  CatalogContract,
  GatewayRoutesContract,
  CanvasContract,
  MemoryContract,
  WorkContract,
  ArtifactsContract,
  AgentContract,
  McpContract,
  McpClientsContract,
  ModelsContract,
  MessengerContract,
  PluginsContract,
  ClusterContract
] as const

type AnyContract = (typeof Contracts)[number]

/**
 * The groups of {@link GatewayApi}, named so that declaration files refer to
 * each group's own type instead of repeating every endpoint.
 */
export type GatewayGroups = AnyContract["http"][number]

const groups = Contracts.flatMap((c): ReadonlyArray<GatewayGroups> => c.http) as unknown as [GatewayGroups, ...Array<GatewayGroups>]

/** The implemented HTTP API: every contract's groups. */
export const GatewayApi: HttpApi.HttpApi<"svc-gateway", GatewayGroups> = HttpApi.make("svc-gateway")
  .add(...groups)
  .annotate(HttpApi.ParamsParseOptions, DIAGNOSTIC_PARSE_OPTIONS)
  .annotate(HttpApi.QueryParseOptions, DIAGNOSTIC_PARSE_OPTIONS)
  .annotateMerge(OpenApi.annotations({
    title: "svc-gateway",
    description:
      "Operator gateway. Authenticate with `Authorization: Bearer <token>` or the `svc_admin_token` cookie " +
      "(cookie requests that change state must come from the gateway's own origin). Device tokens need the scope " +
      "each route names (`x-svc-access`)."
  }))

/** The type of {@link GatewayApi}, for clients and handler builders. */
export type GatewayApi = typeof GatewayApi

/** A handled WebSocket request type (every contract's). */
export type GatewayWsMessage = AnyContract["ws"][number]

/** Handled request types: every contract's, in list order. */
export const WsMessages: ReadonlyArray<GatewayWsMessage> = Contracts.flatMap((c): ReadonlyArray<GatewayWsMessage> => c.ws)

/** Payload and result of every handled request type, by type. */
export type GatewayRequestMap = RequestMap<GatewayWsMessage>

/** Payload and expected result of every gateway-initiated request, by type. */
export type GatewayInitiatedRequestMap = InitiatedMap<(typeof WsInitiatedRequests)[number]>

/** Every event declaration (every contract's). */
export type GatewayEventDeclaration = AnyContract["events"][number]

/** The typed payload of every event, by type: what a client receives. */
export type DeclaredEventMap = EventMap<GatewayEventDeclaration>
