/**
 * The durable workflow engine (issue 12): `effect/workflow`'s
 * `WorkflowEngine` implemented by `effect/cluster`'s `ClusterWorkflowEngine`
 * on a single-process runner whose message and runner storage live in the
 * gateway's own database (the `SqlClient` in the environment: SQLite or
 * PostgreSQL). A multi-process runner later is a change of this layer only.
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
