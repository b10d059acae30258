/**
 * An approval a tool call of the agent raised (kind `tool_call`), shown in
 * the transcript: the tool, its policy tool id, the match target and the
 * arguments, with Approve and Deny (`POST /approvals/:id/respond`, approve
 * once). Once decided it says what happens next: an approved call runs at the
 * start of the session's next turn, which feeds its result to the model.
 */
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useAction } from "../../app/useAction.ts"
import { Countdown } from "../../components/Countdown.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Json } from "../../components/Json.tsx"
import { type Approval, toolCallOf } from "./types.ts"

/** The card of `approval`; `onDecided` gets the decided approval. */
export const ToolApproval = ({ approval, onDecided }: { approval: Approval; onDecided: (approval: Approval) => void }) => {
  const mayDecide = useCan("operator.approvals")
  const action = useAction()
  const tool = toolCallOf(approval)
  const respond = (decision: "approved" | "denied") =>
    action.run(async () => {
      const answer = await call((c) => c.approvals.respond({ params: { id: approval.id }, payload: { decision } }))
      onDecided(answer.approval)
    })
  const title = `approval-${approval.id}-title`
  return (
    <section class="panel tool-approval" aria-labelledby={title}>
      <h3 id={title}>Approval {approval.id}: {tool?.tool ?? approval.kind} ({approval.status})</h3>
      <p class="prompt">{approval.prompt}</p>
      {tool ? (
        <dl class="facts">
          <dt>Policy tool id</dt><dd><code>{tool.tool_id}</code></dd>
          <dt>Target</dt><dd><code>{tool.match_target}</code></dd>
          {approval.status === "pending" && approval.expires_at ? <><dt>Expires in</dt><dd><Countdown until={approval.expires_at} /></dd></> : null}
        </dl>
      ) : null}
      {tool ? <Json value={tool.arguments} label={`Arguments of approval ${approval.id}`} /> : null}
      {approval.status === "pending" ? (
        mayDecide ? (
          <div class="actions">
            <button type="button" class="primary" disabled={action.busy} onClick={() => respond("approved")}>
              Approve<span class="sr-only"> approval {approval.id}</span>
            </button>
            <button type="button" class="danger" disabled={action.busy} onClick={() => respond("denied")}>
              Deny<span class="sr-only"> approval {approval.id}</span>
            </button>
          </div>
        ) : <p class="hint">Deciding needs operator.approvals.</p>
      ) : (
        <p role="status" class={approval.status === "approved" ? "ok" : "hint"}>
          {approval.status === "approved"
            ? "Approved: the call runs at the start of the next turn, and the agent sees its result."
            : `The call was ${approval.status}; the agent is told at its next turn.`}
        </p>
      )}
      <ErrorNote error={action.error} />
    </section>
  )
}
