/**
 * The gateway's instances (`GET /status` `peers`: every live instance of the cluster, this one included; one gateway:
 * itself) and which instance holds each connected node's connections (`GET /nodes` `instance_ids`). The page passes
 * the data it loaded.
 */
import type { StatusResponse } from "../../../../services/diagnostics/schema.ts"
import type { NodeSummary } from "../../../../services/nodes/schema.ts"

/** The instances table: id (this one marked), role, version, connections, last heartbeat. */
export const Instances = ({ status }: { status: StatusResponse }) => (
  <table class="list" aria-label="Instances">
    <thead>
      <tr>
        <th scope="col">Instance</th><th scope="col">Role</th><th scope="col">Version</th>
        <th scope="col">Connections</th><th scope="col">Last heartbeat</th>
      </tr>
    </thead>
    <tbody>
      {status.peers.map((peer) => (
        <tr key={peer.instance_id}>
          <td><code>{peer.instance_id}</code>{peer.instance_id === status.instance_id ? <span class="hint"> (this one)</span> : null}</td>
          <td>{peer.role}</td>
          <td>{peer.version}</td>
          <td>{peer.connections}</td>
          <td>{peer.last_heartbeat_at}</td>
        </tr>
      ))}
    </tbody>
  </table>
)

/** The connected nodes and the instances holding their connections, or a note when none is connected. */
export const NodeHolders = ({ nodes }: { nodes: ReadonlyArray<NodeSummary> }) => {
  const connected = nodes.filter((node) => node.connected)
  return connected.length === 0 ? <p class="empty">No node is connected.</p> : (
    <table class="list" aria-label="Node connections by instance">
      <thead>
        <tr><th scope="col">Node</th><th scope="col">Connections</th><th scope="col">Held by</th></tr>
      </thead>
      <tbody>
        {connected.map((node) => (
          <tr key={node.node_id}>
            <td>{node.label ? <>{node.label}<br /></> : null}<code class="node-id">{node.node_id}</code></td>
            <td>{node.connections}</td>
            <td>{node.instance_ids.map((id) => <code key={id}>{id} </code>)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
