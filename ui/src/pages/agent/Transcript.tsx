/**
 * The transcript: each message the operator sent with the agent's reply
 * (streaming in while the agent types), the tools the turn used, the
 * approvals its tool calls wait for (inline, with Approve and Deny) and its
 * context report; each slash command with its output. Approvals of the
 * session that no reply of this page names (raised before the page opened)
 * come last.
 */
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { ReportView } from "./ReportView.tsx"
import { ToolApproval } from "./ToolApproval.tsx"
import { type Approval, type Turn, waitingApprovals } from "./types.ts"

/** One turn. */
const TurnView = ({ turn, approvals, onDecided }: {
  turn: Turn
  approvals: ReadonlyMap<number, Approval>
  onDecided: (approval: Approval) => void
}) => {
  const waiting = waitingApprovals(turn.reply).flatMap((id) => approvals.get(id) ?? [])
  const who = turn.kind === "command" ? "Command" : "You"
  return (
    <li class={`turn turn-${turn.state}`} aria-busy={turn.state === "sending" || turn.state === "streaming"}>
      <p class="said"><span class="who">{who}:</span> {turn.text}</p>
      {turn.kind === "command"
        ? (turn.state === "done" ? <pre class="output" tabIndex={0} aria-label={`Output of ${turn.text}`}>{turn.reply}</pre> : null)
        : (
          <div class="reply">
            <span class="who">Agent:</span>{" "}
            {turn.reply}
            {turn.state === "sending" ? <span class="hint">waiting…</span> : null}
            {turn.state === "streaming" ? <span class="hint"> (typing…)</span> : null}
          </div>
        )}
      {turn.usedTools.length > 0 ? (
        <p class="tools">Tools used: {turn.usedTools.flatMap((tool, i) => [...(i > 0 ? [", "] : []), <code key={tool}>{tool}</code>])}</p>
      ) : null}
      {waiting.map((approval) => <ToolApproval key={approval.id} approval={approval} onDecided={onDecided} />)}
      {turn.reportId ? <ReportView id={turn.reportId} turn={turn.id} /> : null}
      {turn.state === "failed" ? <ErrorNote error={turn.error} /> : null}
    </li>
  )
}

/** The transcript of `turns`, with the session's tool-call `approvals` (by id) placed under the turn that raised each. */
export const Transcript = ({ turns, approvals, onDecided }: {
  turns: ReadonlyArray<Turn>
  approvals: ReadonlyMap<number, Approval>
  onDecided: (approval: Approval) => void
}) => {
  const named = new Set(turns.flatMap((turn) => waitingApprovals(turn.reply)))
  const others = [...approvals.values()].filter((approval) => !named.has(approval.id) && approval.status === "pending")
  return (
    <>
      <div role="log" aria-label="Transcript" aria-live="polite">
        <ol class="chat">
          {turns.map((turn) => <TurnView key={turn.id} turn={turn} approvals={approvals} onDecided={onDecided} />)}
        </ol>
      </div>
      {turns.length === 0 ? <p class="empty">No message yet on this page. Type one below; a line starting with / is a slash command (/help lists them).</p> : null}
      {others.length > 0 ? (
        <section aria-labelledby="chat-waiting-title">
          <h2 id="chat-waiting-title">Tool calls waiting for you</h2>
          {others.map((approval) => <ToolApproval key={approval.id} approval={approval} onDecided={onDecided} />)}
        </section>
      ) : null}
    </>
  )
}
