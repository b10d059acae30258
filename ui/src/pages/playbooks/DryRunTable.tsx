/**
 * A dry run's verdicts (`POST /playbooks/:id/run`): each compiled step (the
 * playbook step id, `<id>:approval` for the Confirm step an `approval:
 * required` adds), what it does, and the policy's decision with the rules that
 * made it. Nothing was executed or written.
 */
import { describeAction } from "../../components/describeAction.ts"
import type { PlaybookDryRun } from "./types.ts"

/** The verdicts table, and a warning when a step would be denied. */
export const DryRunTable = ({ dryRun }: { dryRun: PlaybookDryRun }) => {
  const denied = dryRun.steps.filter((s) => s.policy.decision === "deny").map((s) => s.step_id)
  const asks = dryRun.steps.filter((s) => s.policy.decision === "require_approval").length
  return (
    <>
      <table class="list" aria-label={`Dry run of ${dryRun.playbook_id}`}>
        <thead>
          <tr><th scope="col">Step</th><th scope="col">Action</th><th scope="col">Policy decision</th><th scope="col">Rules</th></tr>
        </thead>
        <tbody>
          {dryRun.steps.map((step) => (
            <tr key={step.step_id}>
              <td><code>{step.step_id}</code></td>
              <td class="prompt">{describeAction(step.action)}</td>
              <td><span class={`decision decision-${step.policy.decision}`}>{step.policy.decision}</span></td>
              <td>
                <ul class="rules">
                  {step.policy.rules.map((r, i) => <li key={i}><strong>{r.rule}</strong> {r.outcome}: {r.detail}</li>)}
                </ul>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">
        Nothing was executed. {asks > 0 ? `${asks} step(s) will pause for an approval. ` : ""}
        {denied.length > 0 ? "" : "No step is denied."}
      </p>
      {denied.length > 0
        ? <p class="error">Denied by policy: {denied.join(", ")}. A run stops failed at the first denied step.</p>
        : null}
    </>
  )
}
