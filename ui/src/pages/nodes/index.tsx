/**
 * Nodes: every node with a pairing record, with its pairing (status, trust
 * level, allowlist), its connection state on this instance (connections,
 * tasks in flight, last handshake) and the capabilities it declared ready
 * (those a dispatch accepts, then the others with the reason: dispatchable.ts);
 * a dispatch panel sends it a test task (Dispatch.tsx, operator.admin:
 * hidden without it); below, the live WebSocket connections. Live:
 * `capability.ready`, `presence.upserted`, `presence.pruned`,
 * `pairing.requested`, `pairing.resolved` and `attempt.evidence` reload; a
 * node that drops its connection announces nothing at once (presence expires
 * it later), so the page also reloads every 10 s.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useResource } from "../../app/useResource.ts"
import { Capabilities, capabilityLabel } from "../../components/Capabilities.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { usePager } from "../../components/Pager.tsx"
import { Connections } from "./Connections.tsx"
import { Dispatch } from "./Dispatch.tsx"
import { splitReady } from "./dispatchable.ts"
import type { NodeSummary } from "./types.ts"

const EVENTS = ["capability.ready", "presence.upserted", "presence.pruned", "pairing.requested", "pairing.resolved", "attempt.evidence"]
const REFRESH_MS = 10_000

/** The connection state of a row: connected (how many connections, tasks in flight) or not. */
const connectionOf = (node: NodeSummary): string =>
  node.connected
    ? `connected${node.connections > 1 ? ` (${node.connections} connections)` : ""}${node.in_flight > 0 ? `, ${node.in_flight} in flight` : ""}`
    : "not connected"

/** The ready capabilities a dispatch accepts, then those it would refuse, with the reason. */
const Ready = ({ node }: { node: NodeSummary }) => {
  const { dispatchable, refused } = splitReady(node)
  return (
    <>
      <Capabilities list={dispatchable} />
      {refused.map(({ capability, reason }) => (
        <p key={capability.id} class="hint">also ready, not dispatchable: <code>{capabilityLabel(capability)}</code> ({reason})</p>
      ))}
    </>
  )
}

/** The nodes page. */
export default function NodesPage() {
  const mayDispatch = useCan("operator.admin")
  const [selected, setSelected] = useState<string | undefined>(undefined)
  const nodes = useResource(() => call((c) => c.nodes.list({ query: {} })), { events: EVENTS, refreshMs: REFRESH_MS }, [])
  const connections = useResource(() => call((c) => c.diagnostics.connections({ query: {} })), { events: EVENTS, refreshMs: REFRESH_MS }, [])
  const all = nodes.data?.nodes ?? []
  const { slice, controls } = usePager(all)
  const current = all.find((node) => node.node_id === selected)
  const name = (node: NodeSummary) => node.label ?? node.node_id

  return (
    <section aria-labelledby="nodes-title">
      <h1 id="nodes-title">Nodes</h1>
      <div class="toolbar">
        <span aria-live="polite" class="count">
          {nodes.data ? `${all.length} nodes, ${all.filter((n) => n.connected).length} connected` : ""}
        </span>
        {mayDispatch ? null : <span class="hint">Dispatching a test task needs operator.admin.</span>}
      </div>
      <ErrorNote error={nodes.error} />
      {current && mayDispatch ? <Dispatch node={current} onClose={() => setSelected(undefined)} /> : null}
      {nodes.data && all.length === 0 ? <p class="empty">No node yet. A node that connects asks to be paired (see Pairings).</p> : null}
      {slice.length > 0 ? (
        <table class="list" aria-label="Nodes">
          <thead>
            <tr>
              <th scope="col">Node</th><th scope="col">Pairing</th><th scope="col">Connection</th>
              <th scope="col">Ready capabilities</th><th scope="col">Allowlist</th><th scope="col">Last seen</th>
              {mayDispatch ? <th scope="col"><span class="sr-only">Actions</span></th> : null}
            </tr>
          </thead>
          <tbody>
            {slice.map((node) => (
              <tr key={node.node_id} aria-selected={node.node_id === selected}>
                <td>{node.label ? <>{node.label}<br /></> : null}<code class="node-id">{node.node_id}</code></td>
                <td>{node.pairing_status}{node.trust_level ? ` (${node.trust_level})` : ""}</td>
                <td class={node.connected ? "ok" : "hint"}>{connectionOf(node)}</td>
                <td><Ready node={node} /></td>
                <td><Capabilities list={node.capability_allowlist} /></td>
                <td>{node.last_seen_at}</td>
                {mayDispatch ? (
                  <td>
                    {node.connected && splitReady(node).dispatchable.length > 0
                      ? <button type="button" onClick={() => setSelected(node.node_id)}>Dispatch<span class="sr-only"> to {name(node)} ({node.node_id})</span></button>
                      : null}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {controls}
      <h2>Connections</h2>
      <ErrorNote error={connections.error} />
      {connections.data ? <Connections connections={connections.data.connections} /> : null}
    </section>
  )
}
