/**
 * What `SVC_ROLE` changes in one instance (issue 27 §1; docs/scaling.md
 * "Roles"). `edge` runs no background job: its {@link BackgroundJobs} starts
 * nothing, so the watcher ticker, the expiry sweepers, the model catalog
 * refresh and the queue drainers (messenger inbox, subagents) run on the
 * `all` and `worker` instances of the cluster, whose jobs pick up the work
 * from the database. `worker` serves no client: the HTTP middleware answers
 * every route but `GET /healthz` with 404 (src/http/middleware.ts) and no
 * `/ws` upgrade handler is installed (src/app/gateway.ts `gatewayHttp`).
 * `all` changes nothing.
 *
 * @module
 */
import { Effect, Layer } from "effect"
import { GatewayConfig } from "../../layers/config.ts"
import { BackgroundJobs, type BackgroundJobsService } from "../backplane/BackgroundJobs.ts"
import { ClusterJobsLive } from "./clusterJobs.ts"
import type { ClusterRole } from "./settings.ts"

/** An edge instance's jobs: declared, never started (the cluster's other instances run them). */
export const edgeJobs: BackgroundJobsService = {
  // Not Effect.fn: a declaration that starts nothing (BackgroundJobs' methods are untraced too).
  schedule: () => Effect.void,
  singleton: () => Effect.void
}

/** True when an instance of `role` serves HTTP routes other than `/healthz` and WebSocket clients. */
export const servesClients = (role: ClusterRole): boolean => role !== "worker"

/** True when an instance of `role` runs the background jobs. */
export const runsJobs = (role: ClusterRole): boolean => role !== "edge"

/**
 * The `BackgroundJobs` of this instance's role: {@link edgeJobs} for `edge`;
 * with `SVC_CLUSTER=1` on `all`/`worker`, the cluster's singletons
 * (services/cluster/clusterJobs.ts: each job runs on one instance of the
 * cluster); otherwise nothing is provided and the default (every job in this
 * process) stays. Needs `GatewayConfig`.
 */
export const RoleJobs = Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
  !runsJobs(settings.role)
    ? Layer.succeed(BackgroundJobs, edgeJobs)
    : settings.clusterEnabled
    ? ClusterJobsLive
    : Layer.empty
))
