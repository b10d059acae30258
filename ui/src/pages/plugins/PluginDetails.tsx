/**
 * One loaded plugin (Plugins page): its name, version and description; its
 * integrity (verified against the lock, or unlocked) and lock record; its
 * worker; what it contributes; and what it asks for.
 */
import type { PluginRecord } from "./types.ts"

const list = (items: ReadonlyArray<string>) => (items.length === 0 ? "none" : items.join(", "))

/** A loaded plugin's card. */
export const PluginDetails = ({ plugin }: { plugin: PluginRecord }) => {
  const { contributions, permissions } = plugin
  const headingId = `plugin-${plugin.id}`
  return (
    <article class="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{plugin.name} <code>{plugin.id}</code> {plugin.version}</h2>
      {plugin.description ? <p>{plugin.description}</p> : null}
      <dl class="facts">
        <dt>Integrity</dt>
        <dd>
          {plugin.integrity.state === "verified" ? "verified against plugin.lock.json" : "unlocked (no lock file)"}
          {" "}<code title="integrity_sha256">{plugin.integrity.integrity_sha256.slice(0, 16)}…</code>
        </dd>
        {plugin.install ? (
          <>
            <dt>Locked</dt>
            <dd>{plugin.install.recorded_at} at version {plugin.install.pinned_version}{plugin.install.source ? ` from ${plugin.install.source}` : ""}</dd>
          </>
        ) : null}
        <dt>Worker</dt>
        <dd>
          {plugin.worker.status}
          {plugin.worker.restarts > 0 ? `, ${plugin.worker.restarts} restart${plugin.worker.restarts === 1 ? "" : "s"}` : ""}
          {plugin.worker.last_error ? <span class="error"> ({plugin.worker.last_error})</span> : null}
        </dd>
        <dt>Loaded</dt>
        <dd>{plugin.loaded_at} from <code>{plugin.source_dir}</code></dd>
        <dt>Permissions</dt>
        <dd>
          secrets: {list(permissions.secrets ?? [])}; tools: {list(permissions.tools ?? [])}; network egress:{" "}
          {list(permissions.network_egress ?? [])}; database: {permissions.db ? "yes" : "no"}
        </dd>
      </dl>
      <table class="list" aria-label={`Contributions of ${plugin.id}`}>
        <thead>
          <tr><th scope="col">Kind</th><th scope="col">Name</th><th scope="col">As</th><th scope="col">Description</th></tr>
        </thead>
        <tbody>
          {contributions.tools.map((t) => (
            <tr key={`tool:${t.name}`}>
              <td>tool</td><td><code>{t.tool_name}</code></td><td>policy <code>{t.tool_id}</code>{t.secrets.length > 0 ? `; secrets ${t.secrets.join(", ")}` : ""}</td>
              <td class="prompt">{t.description}</td>
            </tr>
          ))}
          {contributions.commands.map((c) => (
            <tr key={`command:${c.name}`}><td>command</td><td><code>/{c.name}</code></td><td>command.execute</td><td class="prompt">{c.help}</td></tr>
          ))}
          {contributions.routes.map((r) => (
            <tr key={`route:${r.name}`}>
              <td>route</td><td><code>{r.path}</code></td><td>{r.scope}</td><td class="prompt">{r.description ?? "—"}</td>
            </tr>
          ))}
          {contributions.mcp_servers.map((m) => (
            <tr key={`mcp:${m.name}`}>
              <td>MCP server</td><td><code>{m.name}</code></td><td>{m.url ?? m.command}</td><td class="prompt">—</td>
            </tr>
          ))}
        </tbody>
      </table>
    </article>
  )
}
