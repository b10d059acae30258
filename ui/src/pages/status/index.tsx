/**
 * Status: this gateway's `/status` fields (version, instance, database,
 * uptime, connections, policy, queue depths, features), every instance of the
 * cluster (role, version, connections, last heartbeat) and the instance
 * holding each connected node, and a few `/metrics` series as small charts
 * (requests/s, p99 latency, runs by status, approvals pending), refreshed
 * every 3 seconds.
 */
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Chart } from "./Chart.tsx"
import { Instances, NodeHolders } from "./Instances.tsx"
import { useMetrics } from "./useMetrics.ts"

const REFRESH_MS = 3000

const duration = (seconds: number): string => {
  const d = Math.floor(seconds / 86400)
  const h = Math.floor((seconds % 86400) / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  return d > 0 ? `${d}d ${h}h ${m}m` : h > 0 ? `${h}h ${m}m` : `${m}m ${seconds % 60}s`
}

/** The status page. */
export default function StatusPage() {
  const status = useResource(() => call((c) => c.runtime.status()), { refreshMs: REFRESH_MS }, [])
  const nodes = useResource(() => call((c) => c.nodes.list({ query: {} })), { refreshMs: REFRESH_MS }, [])
  const { series, error: metricsError } = useMetrics(REFRESH_MS)
  const s = status.data
  return (
    <section aria-labelledby="status-title">
      <h1 id="status-title">Status</h1>
      <ErrorNote error={status.error} />
      {s ? (
        <dl class="facts" aria-label="Gateway status">
          <dt>Version</dt><dd>{s.version}</dd>
          <dt>Instance</dt><dd><code>{s.instance_id}</code> ({s.role})</dd>
          <dt>Database</dt><dd>{s.db_kind}</dd>
          <dt>Exposed</dt><dd>{s.is_exposed ? "yes (bound to a non-loopback address)" : "no (loopback only)"}</dd>
          <dt>Uptime</dt><dd>{duration(s.uptime_s)}</dd>
          <dt>Connections</dt><dd>{s.ws.connections} on this instance ({s.ws.by_role.client} clients, {s.ws.by_role.node} nodes)</dd>
          <dt>Policy</dt><dd><code>{s.policy.effective_sha256.slice(0, 16)}…</code> from {s.policy.sources.deployment}{s.policy.sources.agent ? ` + ${s.policy.sources.agent}` : ""}</dd>
          <dt>Runs</dt><dd>{s.queue_depth.runs.queued} queued, {s.queue_depth.runs.running} running, {s.queue_depth.runs.paused} paused</dd>
          <dt>Approvals pending</dt><dd>{s.queue_depth.approvals_pending}</dd>
          <dt>Watcher firings pending</dt><dd>{s.queue_depth.watcher_firings_pending}</dd>
          <dt>Features</dt>
          <dd>
            {Object.entries(s.features).map(([name, on]) => `${name}: ${String(on)}`).join(", ")}
          </dd>
        </dl>
      ) : null}
      <h2>Instances</h2>
      {s ? <Instances status={s} /> : null}
      <h2>Nodes by instance</h2>
      <ErrorNote error={nodes.error} />
      {nodes.data ? <NodeHolders nodes={nodes.data.nodes} /> : null}
      <h2>Metrics</h2>
      <ErrorNote error={metricsError} />
      <div>
        <Chart title="Requests/s" points={series.requestsPerSecond} format={(n) => n.toFixed(1)} />
        <Chart title="p99 latency" points={series.p99Ms} format={(n) => `${n.toFixed(1)} ms`} />
        <Chart title="Approvals pending" points={series.approvalsPending} format={(n) => String(n)} />
        {Object.entries(series.runsByStatus).map(([runStatus, points]) => (
          <Chart key={runStatus} title={`Runs ${runStatus}`} points={points} format={(n) => `${n} per ${REFRESH_MS / 1000} s`} />
        ))}
      </div>
    </section>
  )
}
