/**
 * One step of a run with its attempts, oldest first. Each attempt is a
 * disclosure (the newest open): status, times, duration, the policy decision
 * that gated it, the error, and its evidence: the result, the postcondition
 * report, its artifacts (downloaded through the run: Artifacts.tsx) and the evidence its node reported live
 * (`attempt.evidence`, liveCapture.ts; the record does not keep that).
 */
import { describeAction } from "../../components/describeAction.ts"
import { Json } from "../../components/Json.tsx"
import { artifactRefs, Artifacts } from "./Artifacts.tsx"
import { decisionOf, durationOf } from "./describe.ts"
import { evidenceOf } from "./liveCapture.ts"
import type { ExecutionAttempt, ExecutionStepDetail } from "./types.ts"

/** A JSON block with a visible caption; its accessible name is `<caption> of attempt <n>`. */
const Block = ({ caption, value, attempt }: { caption: string; value: unknown; attempt: number }) => (
  <>
    <p class="caption">{caption}</p>
    <Json value={value} label={`${caption} of attempt ${attempt}`} />
  </>
)

const Attempt = ({ attempt, open }: { attempt: ExecutionAttempt; open: boolean }) => {
  const duration = durationOf(attempt)
  const decision = decisionOf(attempt)
  const reports = evidenceOf(attempt.attempt_id)
  const refs = artifactRefs(attempt.artifacts)
  return (
    <details class="attempt" open={open}>
      <summary>
        Attempt {attempt.attempt}: <span class={`status status-${attempt.status}`}>{attempt.status}</span>
        {duration === undefined ? "" : `, ${duration} ms`}
        {decision === undefined ? "" : `, policy ${decision}`}
      </summary>
      <dl class="facts">
        <dt>Attempt id</dt><dd><code>{attempt.attempt_id}</code></dd>
        <dt>Started</dt><dd>{attempt.started_at}</dd>
        <dt>Finished</dt><dd>{attempt.finished_at ?? "—"}</dd>
        {attempt.error ? <><dt>Error</dt><dd class="error">{attempt.error.code}: {attempt.error.message}</dd></> : null}
        {attempt.policy_applied_override_ids.length > 0
          ? <><dt>Overrides applied</dt><dd>{attempt.policy_applied_override_ids.join(", ")}</dd></>
          : null}
      </dl>
      {attempt.result !== null ? <Block caption="Result" value={attempt.result} attempt={attempt.attempt} /> : null}
      {attempt.postcondition_report !== null
        ? <Block caption="Postcondition report" value={attempt.postcondition_report} attempt={attempt.attempt} />
        : null}
      {refs.length > 0
        ? <><p class="caption">Artifacts</p><Artifacts runId={attempt.run_id} attempt={attempt.attempt} refs={refs} /></>
        : null}
      {reports.length > 0 ? <Block caption="Evidence reported by the node" value={reports} attempt={attempt.attempt} /> : null}
      {attempt.cost !== null ? <Block caption="Cost" value={attempt.cost} attempt={attempt.attempt} /> : null}
      {attempt.policy_decision !== null ? <Block caption="Policy decision" value={attempt.policy_decision} attempt={attempt.attempt} /> : null}
    </details>
  )
}

/** A step's section: what it does, its status, the approval it waits for, and its attempts. */
export const StepAttempts = ({ step }: { step: ExecutionStepDetail }) => (
  <section class="step" aria-labelledby={`step-${step.step_index}`}>
    <h3 id={`step-${step.step_index}`}>
      Step {step.step_index}: {describeAction(step.action)} <span class={`status status-${step.status}`}>{step.status}</span>
    </h3>
    {step.status === "paused" && step.approval_id !== null
      ? <p>Waiting for <a href="/ui/approvals">approval {step.approval_id}</a>.</p>
      : null}
    {step.attempts.length === 0
      ? <p class="empty">{step.action.type === "Confirm" ? "No attempts: a Confirm step ends with its approval." : "No attempts yet."}</p>
      : null}
    {step.attempts.map((attempt, i) => (
      <Attempt key={attempt.attempt_id} attempt={attempt} open={i === step.attempts.length - 1} />
    ))}
  </section>
)
