/**
 * The durable workflow engine (issue 12): `effect/workflow`'s
 * `WorkflowEngine` implemented by `effect/cluster`'s `ClusterWorkflowEngine`
 * whose message and runner storage live in the gateway's own database (the
 * `SqlClient` in the environment). Two runners, chosen by configuration
 * (services/workflow/Workflow.ts): {@link makeWorkflowEngineLayer}, a
 * single-process runner (SQLite, or PostgreSQL without `SVC_CLUSTER=1`), and
 * {@link makeClusterWorkflowEngineLayer}, one runner of a cluster
 * (`SVC_CLUSTER=1`: services/workflow/engine/ClusterRunner.ts).
 *
 * The cluster storage creates its own tables on first use
 * (`cluster_messages`, `cluster_replies`, `cluster_runners`, `cluster_locks`;
 * see docs/workflow-engine-notes.md).
 *
 * @module
 */
import * as ClusterWorkflowEngine from "effect/cluster/ClusterWorkflowEngine"
import * as SingleRunner from "effect/cluster/SingleRunner"
import * as Digest from "effect/crypto/Digest"
import * as Layer from "effect/Layer"
import { PublishClusterSharding } from "../../cluster/clusterJobs.ts"
import { type ClusterRunnerOptions, clusterRunnerLayer } from "./ClusterRunner.ts"
import type * as SqlClient from "effect/sql/SqlClient"
import type * as WorkflowEngine from "effect/workflow/WorkflowEngine"

/** Cluster settings of the single runner (overridable for tests). */
export type ShardingOptions = Parameters<typeof SingleRunner.layer>[0] extends infer O
  ? O extends { readonly shardingConfig?: infer S } ? NonNullable<S> : never
  : never

/**
 * `WorkflowEngine` over the `SqlClient` in the environment. Building it
 * registers this process as the only runner and takes the shard locks;
 * releasing it gives them back (a killed process's locks expire after
 * `shardLockExpiration`).
 */
export const makeWorkflowEngineLayer = (
  shardingConfig?: ShardingOptions
): Layer.Layer<WorkflowEngine.WorkflowEngine, never, SqlClient.SqlClient> =>
  ClusterWorkflowEngine.layer.pipe(
    Layer.provide(SingleRunner.layer({ runnerStorage: "sql", shardingConfig })),
    Layer.provide(Digest.layerWebCrypto),
    // Only a malformed sharding environment can fail this; that is a start-up defect.
    Layer.orDie
  )

/** The engine with the default sharding settings. */
export const WorkflowEngineLive: Layer.Layer<WorkflowEngine.WorkflowEngine, never, SqlClient.SqlClient> =
  makeWorkflowEngineLayer()

/**
 * `WorkflowEngine` on one runner of a cluster (`effect/cluster` `HttpRunner`
 * over the PostgreSQL `SqlClient` in the environment; see
 * `ClusterRunner.ts` for the listener, the secret and the lock timing).
 * Building it also completes the `ClusterSharding` handle of the
 * environment, if any, so that the cluster's background jobs register
 * (services/cluster/clusterJobs.ts). A runner listener that cannot listen
 * (port in use) is a defect of the build.
 */
export const makeClusterWorkflowEngineLayer = (
  options: ClusterRunnerOptions
): Layer.Layer<WorkflowEngine.WorkflowEngine, never, SqlClient.SqlClient> =>
  Layer.merge(ClusterWorkflowEngine.layer, PublishClusterSharding).pipe(
    Layer.provide(clusterRunnerLayer(options)),
    Layer.provide(Digest.layerWebCrypto),
    Layer.orDie
  )
