/**
 * The agent's status (`GET /agent/status`): its model, whether the model's
 * provider can be used (a credential resolves; never its value, `reason`
 * says what is missing), its tools, sessions and last turn. Reloads after
 * each turn. A 404 means the runtime is off.
 */
import { ApiError, call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"

/** The status of `agent`. */
export const StatusPanel = ({ agent }: { agent: string }) => {
  const status = useResource(() => call((c) => c.agent.status({ query: { agent_id: agent } })), { events: ["context_report.created"] }, [agent])
  const s = status.data
  const off = status.error instanceof ApiError && status.error.status === 404
  return (
    <section class="panel" aria-labelledby="agent-status-title">
      <h2 id="agent-status-title">Agent status</h2>
      {off
        ? <p role="alert" class="error">The agent runtime is off on this gateway: start it with SVC_AGENT_ENABLED=1 (docs/agent.md).</p>
        : <ErrorNote error={status.error} />}
      {s ? (
        <dl class="facts">
          <dt>Agent</dt><dd>{s.agent_id}</dd>
          <dt>Model</dt><dd><code>{s.model}</code></dd>
          <dt>Provider</dt>
          <dd>
            <code>{s.provider.id}</code>:{" "}
            {s.provider.ready ? <span class="ok">ready</span> : <span class="error">not ready{s.provider.reason ? ` (${s.provider.reason})` : ""}</span>}
          </dd>
          <dt>Tools</dt><dd>{s.tools.length === 0 ? "none" : s.tools.join(", ")}</dd>
          <dt>Sessions</dt><dd>{s.session_count}</dd>
          <dt>Last turn</dt><dd>{s.last_turn_at ?? "never"}</dd>
        </dl>
      ) : null}
    </section>
  )
}
