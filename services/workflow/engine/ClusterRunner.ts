/**
 * One runner of the cluster (issue 27 §1; docs/scaling.md "Runners"):
 * `effect/cluster`'s `Sharding` over `HttpRunner`, with `SqlRunnerStorage`
 * and `SqlMessageStorage` on the gateway's PostgreSQL. Runners find each
 * other in `cluster_runners`; the shards spread over the live ones and move
 * when one stops, dies (its heartbeat and shard locks expire after
 * {@link RUNNER_LOCK_EXPIRATION}) or joins.
 *
 * - `all` / `worker`: a full runner. Its address is `host:port`
 *   (`SVC_RUNNER_HOST`, `SVC_RUNNER_PORT`); it listens on `port` with its own
 *   `node:http` server, whose every request must carry
 *   `authorization: Bearer <SVC_CLUSTER_SECRET>` (services/cluster/runnerAuth.ts).
 * - `edge`: client-only (no runner address, no listener): it starts and
 *   resumes runs, the runners execute them.
 *
 * Shard locks are table rows (`shardLockDisableAdvisory`, as for the single
 * runner: advisory locks are database-wide) and the shard count is the
 * single runner's ({@link WORKFLOW_SHARDS}), so runs stored in single mode
 * keep their shards.
 *
 * @module
 */
import * as HttpRunner from "effect/cluster/HttpRunner"
import type * as MessageStorage from "effect/cluster/MessageStorage"
import * as RunnerAddress from "effect/cluster/RunnerAddress"
import * as RunnerHealth from "effect/cluster/RunnerHealth"
import * as Runners from "effect/cluster/Runners"
import type * as Sharding from "effect/cluster/Sharding"
import * as ShardingConfig from "effect/cluster/ShardingConfig"
import * as SqlMessageStorage from "effect/cluster/SqlMessageStorage"
import * as SqlRunnerStorage from "effect/cluster/SqlRunnerStorage"
import type * as Digest from "effect/crypto/Digest"
import * as Duration from "effect/Duration"
import type * as HttpServerError from "effect/http/HttpServerError"
import * as HttpRouter from "effect/http/HttpRouter"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as RpcSerialization from "effect/rpc/RpcSerialization"
import type * as SqlClient from "effect/sql/SqlClient"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { createServer } from "node:http"
import { authenticatedRunnerClient, runnerAuthMiddleware } from "../../cluster/runnerAuth.ts"

/**
 * Shards of the workflow engine, single runner and cluster alike. The
 * cluster default (300) suits many runners; each shard costs lock rows
 * refreshed and mailboxes polled while idle, so a few are enough for a
 * handful of instances. Changing it re-homes stored runs' shards, so it is
 * fixed here, not a setting.
 */
export const WORKFLOW_SHARDS = 8

/** How often a runner refreshes its heartbeat and shard locks. */
export const RUNNER_LOCK_REFRESH: Duration.Duration = Duration.seconds(1)

/**
 * How long a runner's shard locks and heartbeat stay valid without a
 * refresh: a dead instance's shards move to the live runners after this
 * long (plus one assignment refresh, {@link RUNNER_ASSIGNMENT_REFRESH}).
 */
export const RUNNER_LOCK_EXPIRATION: Duration.Duration = Duration.seconds(10)

/** How often a runner reads the live runners and recomputes the shard assignment. */
export const RUNNER_ASSIGNMENT_REFRESH: Duration.Duration = Duration.seconds(2)

/** How often a runner pings the others (an unreachable one is marked unhealthy and loses its shards). */
export const RUNNER_HEALTH_CHECK: Duration.Duration = Duration.seconds(5)

/** One runner of the cluster: its role, address, listener and secret. */
export interface ClusterRunnerOptions {
  /** `edge`: client-only, no listener; `all`/`worker`: a full runner. */
  readonly role: string
  /** The host the other instances reach this runner at (`SVC_RUNNER_HOST`). */
  readonly host: string
  /** The runner port (`SVC_RUNNER_PORT`): the address's and the listener's. */
  readonly port: number
  /** The interface the listener binds; `undefined`: every interface. */
  readonly listenHost?: string | undefined
  /** `SVC_CLUSTER_SECRET`: required on the listener, sent to the others. */
  readonly secret: Redacted.Redacted<string>
  /** Overrides of the sharding settings (tests). */
  readonly shardingConfig?: Partial<ShardingConfig.ShardingConfig["Service"]> | undefined
}

/** The sharding settings of a cluster runner (see the constants above). */
const shardingConfigOf = (options: ClusterRunnerOptions): Layer.Layer<ShardingConfig.ShardingConfig> =>
  ShardingConfig.layer({
    shardsPerGroup: WORKFLOW_SHARDS,
    shardLockDisableAdvisory: true,
    shardLockRefreshInterval: RUNNER_LOCK_REFRESH,
    shardLockExpiration: RUNNER_LOCK_EXPIRATION,
    refreshAssignmentsInterval: RUNNER_ASSIGNMENT_REFRESH,
    runnerHealthCheckInterval: RUNNER_HEALTH_CHECK,
    ...options.shardingConfig,
    runnerAddress: options.role === "edge"
      ? Option.none()
      : Option.some(RunnerAddress.make(options.host, options.port)),
    runnerListenAddress: Option.none()
  })

/**
 * `Sharding`, `Runners` and `MessageStorage` of one cluster runner over the
 * `SqlClient` in the environment (see the module's doc). Fails with a
 * `ServeError` when the listener cannot listen.
 */
export const clusterRunnerLayer = (
  options: ClusterRunnerOptions
): Layer.Layer<
  Sharding.Sharding | Runners.Runners | MessageStorage.MessageStorage,
  HttpServerError.ServeError,
  SqlClient.SqlClient | Digest.Digest
> => {
  const client = authenticatedRunnerClient(options.secret).pipe(Layer.provide(NodeHttpClient.layerNodeHttp))
  const protocol = HttpRunner.layerClientProtocolHttpDefault.pipe(Layer.provide(client))
  const runner = options.role === "edge"
    ? HttpRunner.layerHttpClientOnly.pipe(Layer.provide(client))
    : HttpRouter.serve(
      Layer.merge(HttpRunner.layerHttpOptions({ path: "/" }), runnerAuthMiddleware(options.secret)),
      { disableLogger: true, disableListenLog: true }
    ).pipe(
      Layer.provide(protocol),
      Layer.provide(RunnerHealth.layerPing.pipe(Layer.provide(Runners.layerRpc), Layer.provide(protocol))),
      Layer.provide(NodeHttpServer.layer(() => createServer(), { port: options.port, host: options.listenHost }))
    )
  return runner.pipe(
    Layer.provideMerge(SqlMessageStorage.layer),
    Layer.provide(Layer.orDie(SqlRunnerStorage.layer)),
    Layer.provide(shardingConfigOf(options)),
    Layer.provide(RpcSerialization.layerSchemaBinary())
  )
}
