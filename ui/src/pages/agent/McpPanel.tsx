/**
 * The MCP servers the agent uses as tool sources (`GET /mcp/servers`; docs/mcp.md): each server's owner, transport,
 * health (ready, starting, failed with its last error and the time of the next attempt) and the tools it offers, and
 * the problems of `mcp.yml`. Health changes send no event: the panel reloads every 5 seconds and after each turn.
 * A 404 means the agent runtime is off (the servers run only with it).
 */
import { ApiError, call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"

/** The MCP servers panel. */
export const McpPanel = () => {
  const servers = useResource(() => call((c) => c.mcpClients.servers()), { events: ["context_report.created"], refreshMs: 5_000 }, [])
  const off = servers.error instanceof ApiError && servers.error.status === 404
  const data = servers.data
  return (
    <section class="panel" aria-labelledby="mcp-servers-title">
      <h2 id="mcp-servers-title">MCP servers</h2>
      {off ? <p class="hint">MCP servers run with the agent runtime (SVC_AGENT_ENABLED=1).</p> : <ErrorNote error={servers.error} />}
      {data && data.servers.length === 0 ? <p class="hint">No MCP server: add one to $SVC_HOME/mcp.yml (docs/mcp.md).</p> : null}
      {data && data.servers.length > 0 ? (
        <table class="list" aria-label="MCP servers">
          <thead>
            <tr><th scope="col">Server</th><th scope="col">Health</th><th scope="col">Tools</th></tr>
          </thead>
          <tbody>
            {data.servers.map((s) => (
              <tr key={s.name}>
                <td>
                  <code>{s.name}</code>
                  <div class="hint">{s.transport} · {s.owner}</div>
                </td>
                <td>
                  <span class={s.status === "ready" ? "ok" : s.status === "failed" ? "error" : undefined}>{s.status}</span>
                  {s.status === "failed" && s.last_error ? <div class="error">{s.last_error}</div> : null}
                  {s.status === "failed" && s.retry_at ? <div class="hint">retry at {s.retry_at} ({s.failures} failed)</div> : null}
                  {s.status === "ready" && s.ready_at ? <div class="hint">since {s.ready_at}</div> : null}
                </td>
                <td>{s.tools.length === 0 ? "none" : s.tools.map((t) => <div key={t.name}><code title={t.tool_id}>{t.name}</code></div>)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {data && data.errors.length > 0 ? (
        <>
          <h3>Problems in mcp.yml</h3>
          <ul aria-label="Problems in mcp.yml">
            {data.errors.map((e, i) => <li key={i} class="error">{e.file}{e.line !== undefined ? ` line ${e.line}` : ""}: {e.message}</li>)}
          </ul>
        </>
      ) : null}
    </section>
  )
}
