/**
 * Which backplane this gateway runs (docs/scaling.md): `cluster` selects the PostgreSQL backplane (several instances
 * on one database, `SVC_CLUSTER=1`), announcing `role` (`SVC_ROLE`); the default is one instance, in process. A
 * reference with that default, so a graph that does not set it (tests, embedders) keeps the in-process backplane; the
 * composition root sets it from the settings (src/app/gateway.ts `GatewayConfigLive`). Its own tag rather than
 * `GatewayConfig`, whose type is derived from every subsystem's settings (importing it here would close a cycle).
 *
 * @module
 */
import { Context, type Redacted } from "effect"

/**
 * This instance's runner of the cluster's workflow engine (docs/scaling.md "Runners"): the address the others reach
 * it at (`SVC_RUNNER_HOST`, `SVC_RUNNER_PORT`) and the secret of the runner listener (`SVC_CLUSTER_SECRET`).
 */
export interface RunnerMode {
  readonly host: string
  readonly port: number
  readonly secret: Redacted.Redacted<string>
}

/**
 * `{cluster, role, runner}`: the backplane's mode; default `{cluster: false, role: "all"}`. `runner` is set with
 * `cluster` (the workflow engine then runs on the cluster's runners, services/workflow/Workflow.ts).
 */
export const BackplaneMode = Context.Reference<{
  readonly cluster: boolean
  readonly role: string
  readonly runner?: RunnerMode | undefined
}>(
  "svc-gateway/backplane/BackplaneMode",
  { defaultValue: () => ({ cluster: false, role: "all" }) }
)
