/**
 * The root's list of subsystems (docs/architecture.md "Subsystems"): one
 * descriptor per subsystem (src/subsystem/Subsystem.ts), exported by its
 * folder (`services/<x>/index.ts`). The composition root (src/app/gateway.ts)
 * derives from this list the service graph, the HTTP handlers, the groups a
 * setting switches off, the WS dispatch table and the gateway-wide audit
 * chains; src/app/contracts.ts lists the same subsystems' contracts in the
 * same order (the schema-only twin the clients load; a test keeps the two
 * equal), the snapshot table set (src/app/tables.ts) and the settings
 * (src/app/settings.ts). Adding a subsystem is one folder and one line here
 * (plus its contract's line there).
 *
 * @module
 */
import { ArtifactsSubsystem } from "../../services/artifacts/index.ts"
import { AgentSubsystem } from "../../services/agent/index.ts"
import { ApprovalsSubsystem } from "../../services/approvals/index.ts"
import { AuditSubsystem } from "../../services/audit/index.ts"
import { AuthProfilesSubsystem } from "../../services/auth-profiles/index.ts"
import { AuthSubsystem } from "../../services/auth/index.ts"
import { CanvasSubsystem } from "../../services/canvas/index.ts"
import { ClusterSubsystem } from "../../services/cluster/index.ts"
import { DiagnosticsSubsystem } from "../../services/diagnostics/index.ts"
import { McpClientsSubsystem } from "../../services/mcp-clients/index.ts"
import { McpSubsystem } from "../../services/mcp/index.ts"
import { MessengerSubsystem } from "../../services/messenger/index.ts"
import { MemorySubsystem } from "../../services/memory/index.ts"
import { ModelsSubsystem } from "../../services/models/index.ts"
import { NodesSubsystem } from "../../services/nodes/index.ts"
import { PairingSubsystem } from "../../services/pairing/index.ts"
import { PlannerSubsystem } from "../../services/planner/index.ts"
import { PluginsSubsystem } from "../../services/plugins/index.ts"
import { PlaybooksSubsystem } from "../../services/playbooks/index.ts"
import { PolicyBundleSubsystem } from "../../services/policy-bundle/index.ts"
import { PolicySubsystem } from "../../services/policy/index.ts"
import { ProviderOauthSubsystem } from "../../services/provider-oauth/index.ts"
import { RoutingSubsystem } from "../../services/routing/index.ts"
import { SecretsSubsystem } from "../../services/secrets/index.ts"
import { SnapshotsSubsystem } from "../../services/snapshots/index.ts"
import { WatchersSubsystem } from "../../services/watchers/index.ts"
import { WorkflowSubsystem } from "../../services/workflow/index.ts"
import { SessionsSubsystem } from "../../services/ws-sessions/index.ts"
import { WorkSubsystem } from "../../services/work/index.ts"
import { CatalogSubsystem, GatewayRoutesSubsystem } from "./routes/index.ts"

/** Every subsystem, in the order of src/app/contracts.ts's `Contracts`. */
export const Subsystems: readonly [
  typeof SessionsSubsystem,
  typeof AuthSubsystem,
  typeof PolicySubsystem,
  typeof PolicyBundleSubsystem,
  typeof ApprovalsSubsystem,
  typeof PairingSubsystem,
  typeof NodesSubsystem,
  typeof PlannerSubsystem,
  typeof SecretsSubsystem,
  typeof AuthProfilesSubsystem,
  typeof ProviderOauthSubsystem,
  typeof WorkflowSubsystem,
  typeof PlaybooksSubsystem,
  typeof WatchersSubsystem,
  typeof SnapshotsSubsystem,
  typeof RoutingSubsystem,
  typeof DiagnosticsSubsystem,
  typeof AuditSubsystem,
  typeof CatalogSubsystem,
  typeof GatewayRoutesSubsystem,
  typeof CanvasSubsystem,
  typeof MemorySubsystem,
  typeof WorkSubsystem,
  typeof ArtifactsSubsystem,
  typeof AgentSubsystem,
  typeof McpSubsystem,
  typeof McpClientsSubsystem,
  typeof ModelsSubsystem,
  typeof MessengerSubsystem,
  typeof PluginsSubsystem,
  typeof ClusterSubsystem
] = [
  SessionsSubsystem,
  AuthSubsystem,
  PolicySubsystem,
  PolicyBundleSubsystem,
  ApprovalsSubsystem,
  PairingSubsystem,
  NodesSubsystem,
  PlannerSubsystem,
  SecretsSubsystem,
  AuthProfilesSubsystem,
  ProviderOauthSubsystem,
  WorkflowSubsystem,
  PlaybooksSubsystem,
  WatchersSubsystem,
  SnapshotsSubsystem,
  RoutingSubsystem,
  DiagnosticsSubsystem,
  AuditSubsystem,
  CatalogSubsystem,
  GatewayRoutesSubsystem,
  CanvasSubsystem,
  MemorySubsystem,
  WorkSubsystem,
  ArtifactsSubsystem,
  AgentSubsystem,
  McpSubsystem,
  McpClientsSubsystem,
  ModelsSubsystem,
  MessengerSubsystem,
  PluginsSubsystem,
  ClusterSubsystem
] as const
