/**
 * What an operator can do to one run:
 *
 * - **Resume** a paused run: with the resume token this console received in
 *   `run.paused` (liveCapture.ts), `POST /workflow/resume` (needs
 *   `operator.write`); without one (the pause happened before the console
 *   was open, or the token was not handed to this principal), by approving
 *   the approval the paused step waits for, `POST /approvals/:id/respond`
 *   `approved` (needs `operator.approvals`). Either way that approval ends
 *   approved and the run continues.
 * - **Cancel** a queued, running or paused run with an optional reason,
 *   after a confirmation: `POST /workflow/cancel` (needs `operator.write`).
 *
 * Buttons the principal may not use are hidden; a 403 that still happens is
 * explained.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { ReasonField } from "../../components/ReasonField.tsx"
import { forgetResumeToken, resumeTokenOf, useLiveCapture } from "./liveCapture.ts"
import { CANCELLABLE, type WorkflowRunDetail } from "./types.ts"

/** The approval a paused run waits for: its paused step's `approval_id`. */
const pendingApproval = (detail: WorkflowRunDetail): number | undefined =>
  detail.steps.find((step) => step.status === "paused" && step.approval_id !== null)?.approval_id ?? undefined

/** The actions panel; `onDone` reloads the run. */
export const RunActions = ({ detail, onDone }: { detail: WorkflowRunDetail; onDone: () => void }) => {
  useLiveCapture()
  const mayWrite = useCan("operator.write")
  const mayApprove = useCan("operator.approvals")
  const [reason, setReason] = useState("")
  const [confirming, setConfirming] = useState(false)
  const action = useAction()
  const { run } = detail
  const token = mayWrite ? resumeTokenOf(run.run_id) : undefined
  const approvalId = pendingApproval(detail)
  const mayResume = run.status === "paused" && (token !== undefined || (mayApprove && approvalId !== undefined))
  const mayCancel = mayWrite && CANCELLABLE.includes(run.status)

  const act = (what: () => Promise<string>) =>
    action.run(async () => {
      const message = await what()
      onDone()
      return message
    })

  const resume = () =>
    act(async () => {
      if (token !== undefined) {
        forgetResumeToken(run.run_id)
        await call((c) => c.workflow.resume({ payload: { token } }))
        return `Run ${run.run_id} resumed.`
      }
      await call((c) =>
        c.approvals.respond({ params: { id: approvalId! }, payload: { decision: "approved", reason: "resumed from the console" } })
      )
      return `Run ${run.run_id} resumed (approval ${approvalId} approved).`
    })

  const cancel = () =>
    act(async () => {
      setConfirming(false)
      const answer = await call((c) =>
        c.workflow.cancel({ payload: { run_id: run.run_id, ...(reason.trim() === "" ? {} : { reason: reason.trim() }) } })
      )
      setReason("")
      return answer.cancelled ? `Run ${run.run_id} cancelled.` : `Run ${run.run_id} had already ended; nothing to cancel.`
    })

  if (!mayResume && !mayCancel && action.done === undefined && action.error === undefined) return null
  return (
    <section class="panel" aria-labelledby="run-actions">
      <h2 id="run-actions">Actions</h2>
      {mayResume ? (
        <div class="actions">
          <button type="button" class="primary" disabled={action.busy} onClick={resume}>Resume run</button>
          <span class="hint">
            {token !== undefined
              ? "Uses the resume token of this pause (approves its approval)."
              : `Approves approval ${approvalId}, which this pause waits for.`}
          </span>
        </div>
      ) : null}
      {mayCancel ? (
        <form class="run-cancel" onSubmit={(e) => e.preventDefault()}>
          <ReasonField label="Cancel reason (optional)" value={reason} maxLength={1024} onInput={setReason} />
          <div class="actions">
            {confirming ? (
              <>
                <span role="alert">Cancel run {run.run_id}? Open steps and its pending approvals are cancelled.</span>
                <button type="button" class="danger" disabled={action.busy} onClick={cancel}>Yes, cancel the run</button>
                <button type="button" onClick={() => setConfirming(false)}>Keep it</button>
              </>
            ) : (
              <button type="button" class="danger" disabled={action.busy} onClick={() => setConfirming(true)}>Cancel run</button>
            )}
          </div>
        </form>
      ) : null}
      {action.done ? <p role="status" class="ok">{action.done}</p> : null}
      <ErrorNote error={action.error} />
    </section>
  )
}
