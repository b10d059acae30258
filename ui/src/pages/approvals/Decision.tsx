/**
 * The decision panel of one approval: its prompt and context, then approve
 * once, approve always (the suggested overrides of `context.policy`, each
 * selectable and editable; the gateway accepts only suggested ones and says
 * so), or deny with a reason. `POST /approvals/:id/respond`.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useAction } from "../../app/useAction.ts"
import { Countdown } from "../../components/Countdown.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Json } from "../../components/Json.tsx"
import { ReasonField } from "../../components/ReasonField.tsx"
import type { Approval, ApprovalOverrideSelection } from "./types.ts"

interface Suggestion extends ApprovalOverrideSelection {
  readonly selected: boolean
}

const suggestionsOf = (approval: Approval): Array<Suggestion> => {
  const policy = (approval.context as { policy?: { suggested_overrides?: ReadonlyArray<unknown> } } | null)?.policy
  return (policy?.suggested_overrides ?? []).flatMap((entry) => {
    const o = entry as Partial<ApprovalOverrideSelection>
    if (typeof o.tool_id !== "string" || typeof o.pattern !== "string") return []
    return [{ tool_id: o.tool_id, pattern: o.pattern, ...(typeof o.workspace_id === "string" ? { workspace_id: o.workspace_id } : {}), selected: true }]
  })
}

/** The panel; `onDecided` receives the decided approval (the list reloads). */
export const Decision = ({ approval, onClose, onDecided }: { approval: Approval; onClose: () => void; onDecided: (approval: Approval) => void }) => {
  const mayDecide = useCan("operator.approvals")
  const [reason, setReason] = useState("")
  const [suggestions, setSuggestions] = useState(() => suggestionsOf(approval))
  const action = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    setSuggestions(suggestionsOf(approval))
    action.reset()
  }, [approval.id])
  // The decision's answer stays while the decided approval leaves the pending list.

  const respond = (decision: "approved" | "denied", mode: "once" | "always") =>
    action.run(async () => {
      const overrides = suggestions.filter((s) => s.selected).map(({ selected: _, ...o }) => o)
      const answer = await call((c) =>
        c.approvals.respond({
          params: { id: approval.id },
          payload: {
            decision,
            ...(reason.trim() === "" ? {} : { reason: reason.trim() }),
            ...(mode === "always" ? { mode, overrides } : {})
          }
        })
      )
      onDecided(answer.approval)
      const created = answer.created_overrides?.length ?? 0
      return `Approval ${approval.id} ${answer.approval.status}${created > 0 ? `; ${created} override(s) created` : ""}.`
    })

  const edit = (index: number, patch: Partial<Suggestion>) =>
    setSuggestions((all) => all.map((s, i) => (i === index ? { ...s, ...patch } : s)))

  return (
    <section class="panel" aria-labelledby="decision-title">
      <h2 id="decision-title" tabIndex={-1} ref={heading}>Approval {approval.id} ({approval.kind}, {approval.status})</h2>
      <p class="prompt">{approval.prompt}</p>
      <dl class="facts">
        <dt>Plan / step</dt><dd><code>{approval.plan_id}</code> / {approval.step_index}</dd>
        <dt>Created</dt><dd>{approval.created_at}</dd>
        <dt>Expires in</dt><dd><Countdown until={approval.expires_at} /></dd>
        {approval.scope?.run_id ? <><dt>Run</dt><dd><a href={`/ui/runs/${approval.scope.run_id}`}>{approval.scope.run_id}</a></dd></> : null}
      </dl>
      <Json value={approval.context} label="Approval context" />
      {approval.status === "pending" && mayDecide ? (
        <form onSubmit={(e) => e.preventDefault()}>
          <ReasonField value={reason} maxLength={2000} onInput={setReason} />
          {suggestions.length > 0 ? (
            <fieldset>
              <legend>Overrides for "approve always"</legend>
              {suggestions.map((s, i) => (
                <div class="override" key={i}>
                  <label><input type="checkbox" checked={s.selected} onChange={(e) => edit(i, { selected: (e.currentTarget as HTMLInputElement).checked })} /> {s.tool_id}</label>
                  <label>
                    Pattern <input value={s.pattern} onInput={(e) => edit(i, { pattern: (e.currentTarget as HTMLInputElement).value })} />
                  </label>
                  {s.workspace_id ? <span>workspace {s.workspace_id}</span> : null}
                </div>
              ))}
            </fieldset>
          ) : null}
          <div class="actions">
            <button type="button" disabled={action.busy} onClick={() => respond("approved", "once")}>Approve once</button>
            {suggestions.length > 0 ? (
              <button type="button" disabled={action.busy || !suggestions.some((s) => s.selected)} onClick={() => respond("approved", "always")}>Approve always</button>
            ) : null}
            <button type="button" class="danger" disabled={action.busy} onClick={() => respond("denied", "once")}>Deny</button>
            <button type="button" onClick={onClose}>Close</button>
          </div>
        </form>
      ) : (
        <div class="actions">
          {approval.resolution ? <p>Decided: {approval.resolution.decision}{approval.resolution.reason ? ` (${approval.resolution.reason})` : ""} at {approval.resolution.resolved_at}</p> : null}
          <button type="button" onClick={onClose}>Close</button>
        </div>
      )}
      {action.done ? <p role="status" class="ok">{action.done}</p> : null}
      <ErrorNote error={action.error} />
    </section>
  )
}
