/**
 * The live WebSocket connections of the gateway, on every instance of the
 * cluster (`GET /connections`, operator.read): each peer's device, role, label
 * and platform, when it connected, its ready capabilities, how it authenticated
 * (token kind and scopes, never a token) and the instance holding it. The page
 * passes the data it loaded.
 */
import type { ConnectionSummary } from "./types.ts"

/** The connections table, or a note when there is none. */
export const Connections = ({ connections }: { connections: ReadonlyArray<ConnectionSummary> }) =>
  connections.length === 0 ? <p class="empty">No live connection.</p> : (
    <table class="list" aria-label="Live connections">
      <thead>
        <tr>
          <th scope="col">Device</th><th scope="col">Role</th><th scope="col">Label / platform</th>
          <th scope="col">Connected</th><th scope="col">Ready</th><th scope="col">Credential</th>
          <th scope="col">Instance</th>
        </tr>
      </thead>
      <tbody>
        {connections.map((c) => (
          <tr key={c.connection_id}>
            <td><code class="node-id">{c.device_id}</code></td>
            <td>{c.role}</td>
            <td>{[c.label, c.platform, c.mode].filter(Boolean).join(" · ") || "—"}</td>
            <td>{c.connected_at}{c.remote_address ? <><br /><span class="hint">{c.remote_address}</span></> : null}</td>
            <td>{c.ready_capabilities.length === 0 ? <span class="hint">none</span> : c.ready_capabilities.map((id) => <code key={id}>{id} </code>)}</td>
            <td>{c.token_kind}{c.scopes.length > 0 && c.token_kind !== "admin" ? ` (${c.scopes.join(", ")})` : ""}</td>
            <td><code>{c.instance_id}</code></td>
          </tr>
        ))}
      </tbody>
    </table>
  )
