/**
 * Runtime diagnostics (gateway-api.md "Runtime and diagnostics"; issue 14
 * §1; reference §7.8; docs/operations.md "Status", "Metrics", "Usage"):
 * the process's state (`GET /status`), the Prometheus exposition of its
 * metrics (`GET /metrics`) and the attempt costs summed by scope
 * (`GET /usage`).
 *
 * Storage failures are defects (500 over HTTP).
 *
 * @module
 */
import { Clock, Context, Effect, Layer } from "effect"
import { GatewayConfig, GATEWAY_VERSION } from "../../layers/config.ts"
import { DatabaseInfo } from "../../layers/storage/Storage.ts"
import { PolicyBundle } from "../policy-bundle/PolicyBundle.ts"
import { InvalidRequest, NotFound } from "../shared/errors.ts"
import { CliSandbox } from "../workflow/executors/CliSandbox.ts"
import { CLUSTER_ROLES, type ClusterRole } from "../cluster/settings.ts"
import { ConnectionRegistry } from "../ws-sessions/ConnectionRegistry.ts"
import { Backplane } from "../backplane/Backplane.ts"
import { BackplanePeers } from "../backplane/peers.ts"
import { DiagnosticsRepo, type UsageFilter } from "./DiagnosticsRepo.ts"
import { GatewayMetrics, renderPrometheus } from "../metrics/GatewayMetrics.ts"
import { processSampler } from "./processSample.ts"
import type { StatusResponse, UsageQuery, UsageResponse } from "./schema.ts"


/** Content type of the Prometheus text exposition format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

const USAGE_SELECTORS = ["run_id", "key", "agent_id"] as const

/** A peer's role as `/status` types it (a row written by another version with an unknown role reads as `all`). */
const roleOf = (role: string): ClusterRole => ((CLUSTER_ROLES as ReadonlyArray<string>).includes(role) ? role as ClusterRole : "all")

/** The diagnostics service. */
export class Diagnostics extends Context.Service<Diagnostics, {
  /** `GET /status`: this process, the cluster's live instances (`peers`) and the shared queues (StatusResponse in ./schema.ts). */
  readonly status: Effect.Effect<StatusResponse>
  /**
   * `GET /metrics`: every series in the Prometheus text format (0.0.4),
   * after sampling the scrape-time gauges (pending approvals, memory, loop
   * lag). `NotFound` when metrics are off (`SVC_METRICS=off`).
   */
  readonly metrics: Effect.Effect<string, NotFound>
  /**
   * `GET /usage`: attempt costs summed over one run, one key, one agent's
   * keys (`agent:<id>:…`) or, with no selector, the deployment. More than
   * one selector is `InvalidRequest` (400). An unknown run, key or agent has
   * zero totals.
   */
  readonly usage: (query: UsageQuery) => Effect.Effect<UsageResponse, InvalidRequest>
}>()("svc-gateway/diagnostics/Diagnostics") {
  /**
   * Needs `GatewayConfig`, `DatabaseInfo`, {@link DiagnosticsRepo},
   * `ConnectionRegistry`, `BackplanePeers` (the instance id and the peers),
   * `PolicyBundle` and `CliSandbox`; records through `GatewayMetrics`.
   */
  static readonly layerNoDeps = Layer.effect(
    Diagnostics,
    Effect.gen(function*() {
      const settings = yield* GatewayConfig
      const db = yield* DatabaseInfo
      const repo = yield* DiagnosticsRepo
      const registry = yield* ConnectionRegistry
      const cluster = yield* BackplanePeers
      const policy = yield* PolicyBundle
      const recorder = yield* GatewayMetrics
      const cliSandbox = yield* CliSandbox
      // The event-loop monitor runs only while metrics are on.
      const sampleProcess = recorder.enabled ? yield* processSampler : Effect.succeed({})
      const startedAt = yield* Clock.currentTimeMillis

      /** This instance's connections summarised, and every instance's connection count. */
      const wsSummary = () => {
        const byRole = { client: 0, node: 0 }
        const capabilityCounts: Record<string, number> = {}
        const perInstance = new Map<string, number>()
        let connections = 0
        for (const connection of registry.all()) {
          const holder = cluster.holderOf(connection.connectionId)
          if (holder !== undefined) perInstance.set(holder, (perInstance.get(holder) ?? 0) + 1)
          if (holder !== cluster.instanceId) continue
          connections++
          byRole[connection.role]++
          for (const capability of connection.capabilities) {
            capabilityCounts[capability.id] = (capabilityCounts[capability.id] ?? 0) + 1
          }
        }
        return { ws: { connections, by_role: byRole, capability_counts: capabilityCounts }, perInstance }
      }

      const status = Effect.gen(function*() {
        const effective = yield* policy.effective
        const [runs, approvalsPending, watcherFiringsPending] = yield* Effect.orDie(
          Effect.all([repo.runDepth, repo.approvalsPending, repo.watcherFiringsPending])
        )
        const now = yield* Clock.currentTimeMillis
        const live = yield* cluster.peers
        const { perInstance, ws } = wsSummary()
        return {
          status: "ok",
          version: GATEWAY_VERSION,
          instance_id: cluster.instanceId,
          role: settings.role,
          db_kind: db.kind,
          is_exposed: settings.isExposed,
          uptime_s: Math.max(0, Math.floor((now - startedAt) / 1000)),
          ws,
          policy: {
            enabled: true,
            effective_sha256: effective.sha256,
            sources: { deployment: effective.sources.deployment, agent: effective.sources.agent }
          },
          queue_depth: { runs, approvals_pending: approvalsPending, watcher_firings_pending: watcherFiringsPending },
          features: {
            engine_api: settings.engineApiEnabled,
            automation: settings.automationEnabled,
            cli: cliSandbox.kind !== "disabled" && cliSandbox.kind !== "unavailable",
            cli_sandbox: cliSandbox.kind,
            // No agent runtime in this build (and no setting for one).
            agent: false
          },
          peers: live.map((peer) => ({
            instance_id: peer.instance_id,
            role: roleOf(peer.role),
            version: peer.version,
            started_at: peer.started_at,
            last_heartbeat_at: peer.last_heartbeat_at,
            connections: perInstance.get(peer.instance_id) ?? 0
          }))
        } satisfies StatusResponse as StatusResponse
      }).pipe(Effect.withSpan("Diagnostics.status"))

      const disabled = new NotFound({ message: "metrics are disabled (SVC_METRICS=off)" })
      const metrics = recorder.enabled
        ? Effect.gen(function*() {
          const approvalsPending = yield* Effect.orDie(repo.approvalsPending)
          recorder.sample({ approvalsPending, ...(yield* sampleProcess) })
          return renderPrometheus(recorder)
        }).pipe(Effect.withSpan("Diagnostics.metrics"))
        : Effect.fail(disabled)

      const usage = Effect.fn("Diagnostics.usage")(function*(query: UsageQuery) {
        const given = USAGE_SELECTORS.filter((name) => query[name] !== undefined)
        if (given.length > 1) {
          return yield* new InvalidRequest({
            message: `query: give at most one of run_id, key and agent_id (got ${given.join(" and ")})`
          })
        }
        const scope: UsageFilter = query.run_id !== undefined
          ? { kind: "run", run_id: query.run_id }
          : query.key !== undefined
          ? { kind: "key", key: query.key }
          : query.agent_id !== undefined
          ? { kind: "agent", agent_id: query.agent_id }
          : { kind: "deployment" }
        const sums = yield* Effect.orDie(repo.usage(scope))
        if (sums.unreadable > 0) {
          yield* Effect.logWarning("usage: unreadable attempt costs were skipped").pipe(
            Effect.annotateLogs({ scope: scope.kind, unreadable: sums.unreadable })
          )
        }
        const now = yield* Clock.currentTimeMillis
        return { status: "ok", generated_at: new Date(now).toISOString(), scope, totals: sums.totals } satisfies UsageResponse as UsageResponse
      })

      return Diagnostics.of({ status, metrics, usage })
    })
  )

  /**
   * Wired: the repository, and the shared `ConnectionRegistry`,
   * the backplane's `BackplanePeers`, `PolicyBundle` and `CliSandbox` layers (layers are memoized, so these
   * are the instances the other subsystems use). Needs `GatewayConfig` and
   * the storage.
   */
  static readonly layer = Diagnostics.layerNoDeps.pipe(
    Layer.provide(DiagnosticsRepo.layer),
    Layer.provide(PolicyBundle.layer),
    Layer.provide(ConnectionRegistry.layer),
    Layer.provide(Backplane.layer),
    Layer.provide(CliSandbox.layer)
  )
}
