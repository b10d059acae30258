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
 * otherwise nothing is provided and the default (every job in this process,
 * or the cluster layer the root provides) stays. Needs `GatewayConfig`.
 */
export const RoleJobs = Layer.unwrap(Effect.map(GatewayConfig, (settings) =>
  runsJobs(settings.role) ? Layer.empty : Layer.succeed(BackgroundJobs, edgeJobs)
))
