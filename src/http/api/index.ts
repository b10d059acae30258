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
import { ApprovalsApi } from "./approvals.ts"
import { WorkflowApi } from "./workflow.ts"
import { AuthApi } from "./auth.ts"
import { AuthProfilesApi } from "./authProfiles.ts"
import { AuditApi } from "./audit.ts"
import { ContractsApi } from "./contracts.ts"
import { DiagnosticsApi } from "./diagnostics.ts"
import { DocsApi } from "./docs.ts"
import { HealthApi } from "./health.ts"
import { NodesApi } from "./nodes.ts"
import { PairingApi } from "./pairing.ts"
import { PlanApi } from "./plan.ts"
import { PlaybooksApi } from "./playbooks.ts"
import { PolicyApi } from "./policy.ts"
import { PolicyBundleApi } from "./policyBundle.ts"
import { SecretsApi } from "./secrets.ts"
import { SnapshotsApi } from "./snapshots.ts"
import { ProviderOAuthApi } from "./providerOAuth.ts"
import { RuntimeApi } from "./runtime.ts"
import { RoutingApi } from "./routing.ts"
import { UiApi } from "./ui.ts"
import { WatchersApi } from "./watchers.ts"

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
