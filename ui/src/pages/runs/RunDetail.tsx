/**
 * One run (`/ui/runs/<run_id>`): its facts (status, key and lane, plan,
 * times, why it is paused), the actions (resume, cancel: RunActions.tsx), a
 * table of its steps and each step with its attempts (StepAttempts.tsx).
 * `GET /workflow/runs/:run_id`, reloaded live on `run.*`, `step.updated`,
 * `attempt.updated`; node evidence re-renders as it arrives.
 */
import { useEffect, useRef } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { describeAction } from "../../components/describeAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { useLiveCapture } from "./liveCapture.ts"
import { RunActions } from "./RunActions.tsx"
import { StepAttempts } from "./StepAttempts.tsx"
import { RUN_EVENTS } from "./types.ts"

/** The detail of `runId`. */
export const RunDetail = ({ runId }: { runId: string }) => {
  useLiveCapture()
  const detail = useResource(
    () => call((c) => c.workflow.get({ params: { run_id: runId } })),
    { events: RUN_EVENTS },
    [runId]
  )
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => heading.current?.focus(), [runId])
  const data = detail.data
  const run = data?.run

  return (
    <section aria-labelledby="run-title">
      <p><a href="/ui/runs">← All runs</a></p>
      <h1 id="run-title" tabIndex={-1} ref={heading}>
        Run <code>{runId}</code> {run ? <span class={`status status-${run.status}`}>{run.status}</span> : null}
      </h1>
      <ErrorNote error={detail.error} />
      {data && run ? (
        <>
          <dl class="facts">
            <dt>Key / lane</dt><dd><code>{run.key}</code> / {run.lane}</dd>
            <dt>Plan / request</dt><dd><code>{run.plan_id}</code> / <code>{run.request_id}</code></dd>
            <dt>Job / attempt</dt><dd><code>{run.job_id}</code> / {run.attempt}</dd>
            <dt>Created</dt><dd>{run.created_at}</dd>
            <dt>Started</dt><dd>{run.started_at ?? "—"}</dd>
            <dt>Finished</dt><dd>{run.finished_at ?? "—"}</dd>
            {run.paused_reason
              ? <><dt>Paused</dt><dd>{run.paused_reason}{run.paused_detail ? `: ${run.paused_detail}` : ""}</dd></>
              : null}
            {run.budgets ? <><dt>Budgets</dt><dd><code>{JSON.stringify(run.budgets)}</code></dd></> : null}
            {run.policy_snapshot_id ? <><dt>Policy snapshot</dt><dd><code>{run.policy_snapshot_id}</code></dd></> : null}
          </dl>
          <RunActions detail={data} onDone={detail.reload} />
          <h2>Steps</h2>
          <table class="list" aria-label={`Steps of run ${runId}`}>
            <thead>
              <tr><th scope="col">#</th><th scope="col">Action</th><th scope="col">Status</th><th scope="col">Attempts</th><th scope="col">Approval</th></tr>
            </thead>
            <tbody>
              {data.steps.map((step) => (
                <tr key={step.step_id}>
                  <td>{step.step_index}</td>
                  <td class="prompt">{describeAction(step.action)}</td>
                  <td><span class={`status status-${step.status}`}>{step.status}</span></td>
                  <td>{step.attempts.length}</td>
                  <td>{step.approval_id ?? "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Attempts and evidence</h2>
          {data.steps.map((step) => <StepAttempts key={step.step_id} step={step} />)}
        </>
      ) : detail.loading ? <p aria-busy="true">Loading…</p> : null}
    </section>
  )
}
