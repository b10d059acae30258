/**
 * The gateway's HTTP API: one declaration per endpoint (method, path, access,
 * request and response schemas, errors with their statuses), grouped by
 * subsystem. Routing, authorization, the OpenAPI document and the typed HTTP
 * client are all derived from {@link GatewayApi} (plus {@link PlannedApi},
 * the spec's routes that are declared but not served yet). This module and
 * the group modules import schemas only, never server code, so clients can
 * load them.
 */
import { HttpApi, OpenApi } from "effect/http-api"
import { DIAGNOSTIC_PARSE_OPTIONS } from "../../../services/shared/decode.ts"
import { ApprovalsApi } from "../../../services/approvals/transport/httpApi.ts"
import { WorkflowApi } from "../../../services/workflow/transport/httpApi.ts"
import { AuthApi } from "../../../services/auth/transport/httpApi.ts"
import { AuthProfilesApi } from "../../../services/auth-profiles/transport/httpApi.ts"
import { AuditApi } from "../../../services/audit/transport/httpApi.ts"
import { ContractsApi } from "../../contracts/httpApi.ts"
import { DiagnosticsApi } from "../../../services/ws-sessions/transport/httpApi.ts"
import { DocsApi } from "./docs.ts"
import { HealthApi } from "./health.ts"
import { NodesApi } from "../../../services/nodes/transport/httpApi.ts"
import { PairingApi } from "../../../services/pairing/transport/httpApi.ts"
import { PlanApi } from "../../../services/planner/transport/httpApi.ts"
import { PlaybooksApi } from "../../../services/playbooks/transport/httpApi.ts"
import { PolicyApi } from "../../../services/policy/transport/httpApi.ts"
import { PolicyBundleApi } from "../../../services/policy-bundle/transport/httpApi.ts"
import { SecretsApi } from "../../../services/secrets/transport/httpApi.ts"
import { SnapshotsApi } from "../../../services/snapshots/transport/httpApi.ts"
import { ProviderOAuthApi } from "../../../services/provider-oauth/transport/httpApi.ts"
import { RuntimeApi } from "../../../services/diagnostics/transport/httpApi.ts"
import { RoutingApi } from "../../../services/routing/transport/httpApi.ts"
import { UiApi } from "./ui.ts"
import { WatchersApi } from "../../../services/watchers/transport/httpApi.ts"

export { PlannedApi } from "./planned.ts"

/**
 * The implemented HTTP API. Add a subsystem's group here (and to
 * {@link GatewayGroups}). Every group carries `RequestErrors`
 * (src/http/api/security.ts); path and query decode with the parse options
 * of services/shared/decode.ts (first issue, unknown keys ignored, the input
 * kept for the message). Successes and errors are encoded by their schemas.
 */
export const GatewayApi: HttpApi.HttpApi<"svc-gateway", GatewayGroups> = HttpApi.make("svc-gateway")
  .add(HealthApi)
  .add(PolicyApi)
  .add(PolicyBundleApi)
  .add(AuthApi)
  .add(DiagnosticsApi)
  .add(RuntimeApi)
  .add(ContractsApi)
  .add(ApprovalsApi)
  .add(WorkflowApi)
  .add(PairingApi)
  .add(NodesApi)
  .add(DocsApi)
  .add(UiApi)
  .add(PlanApi)
  .add(SecretsApi)
  .add(ProviderOAuthApi)
  .add(AuthProfilesApi)
  .add(PlaybooksApi)
  .add(WatchersApi)
  .add(AuditApi)
  .add(SnapshotsApi)
  .add(RoutingApi)
  .annotate(HttpApi.ParamsParseOptions, DIAGNOSTIC_PARSE_OPTIONS)
  .annotate(HttpApi.QueryParseOptions, DIAGNOSTIC_PARSE_OPTIONS)
  .annotateMerge(OpenApi.annotations({
    title: "svc-gateway",
    description:
      "Operator gateway. Authenticate with `Authorization: Bearer <token>` or the `svc_admin_token` cookie " +
      "(cookie requests that change state must come from the gateway's own origin). Device tokens need the scope " +
      "each route names (`x-svc-access`)."
  }))

/**
 * The groups of {@link GatewayApi}, named so that declaration files refer to
 * each group's own type instead of repeating every endpoint.
 */
export type GatewayGroups =
  | typeof HealthApi
  | typeof PolicyApi
  | typeof PolicyBundleApi
  | typeof AuthApi
  | typeof DiagnosticsApi
  | typeof RuntimeApi
  | typeof ContractsApi
  | typeof ApprovalsApi
  | typeof WorkflowApi
  | typeof PairingApi
  | typeof NodesApi
  | typeof DocsApi
  | typeof UiApi
  | typeof PlanApi
  | typeof SecretsApi
  | typeof ProviderOAuthApi
  | typeof AuthProfilesApi
  | typeof PlaybooksApi
  | typeof WatchersApi
  | typeof AuditApi
  | typeof SnapshotsApi
  | typeof RoutingApi

/** The type of {@link GatewayApi}, for clients and handler builders. */
export type GatewayApi = typeof GatewayApi
