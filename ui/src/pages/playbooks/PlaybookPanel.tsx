/**
 * One playbook (`GET /playbooks/:id`): its facts and manifest steps, then
 * the dry run (`POST /playbooks/:id/run`: each compiled step's policy
 * decision, DryRunTable.tsx) and, once the dry run of this version of the file
 * was seen, starting it as a durable run (`POST /playbooks/:id/execute` with
 * the optional key and lane), linked to its page under /ui/runs. Both need
 * `operator.write` (hidden without it); a 403 that still happens is explained.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useCan } from "../../app/session.ts"
import { useAction } from "../../app/useAction.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { DryRunTable } from "./DryRunTable.tsx"
import { type Lane, LANES, type PlaybookDryRun, type PlaybookExecuteRequest, type PlaybookSummary } from "./types.ts"

interface Started {
  readonly runId: string
  readonly key: string
  readonly lane: Lane
}

/** The panel of `summary` (the list's row: its `loaded_at` tells when the file changed). */
export const PlaybookPanel = ({ summary, onClose }: { summary: PlaybookSummary; onClose: () => void }) => {
  const mayWrite = useCan("operator.write")
  const detail = useResource(() => call((c) => c.playbooks.get({ params: { id: summary.id } })), {}, [summary.id, summary.loaded_at])
  const [dryRun, setDryRun] = useState<{ result: PlaybookDryRun; loadedAt: string } | undefined>(undefined)
  const [key, setKey] = useState("")
  const [lane, setLane] = useState<Lane>("main")
  const action = useAction()
  const [started, setStarted] = useState<Started | undefined>(undefined)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    setDryRun(undefined)
    setStarted(undefined)
    action.reset()
  }, [summary.id])

  const current = dryRun !== undefined && dryRun.loadedAt === summary.loaded_at
  const runDry = () =>
    action.run(async () => {
      setStarted(undefined)
      const result = await call((c) => c.playbooks.run({ params: { id: summary.id } }))
      setDryRun({ result, loadedAt: summary.loaded_at })
    })
  const start = action.submit(async () => {
    const payload: PlaybookExecuteRequest = { ...(key.trim() === "" ? {} : { key: key.trim() }), lane }
    const answer = await call((c) => c.playbooks.execute({ params: { id: summary.id }, payload }))
    setStarted({ runId: answer.run_id, key: answer.key, lane: answer.lane })
  })

  const manifest = detail.data?.manifest
  return (
    <section class="panel" aria-labelledby="playbook-title">
      <h2 id="playbook-title" tabIndex={-1} ref={heading}>Playbook {summary.name} (<code>{summary.id}</code>)</h2>
      {summary.description ? <p>{summary.description}</p> : null}
      <dl class="facts">
        <dt>Version</dt><dd>{summary.version}</dd>
        <dt>File</dt><dd><code>{summary.file_path}</code></dd>
        <dt>Loaded</dt><dd>{summary.loaded_at}</dd>
      </dl>
      <ErrorNote error={detail.error} />
      {manifest ? (
        <table class="list" aria-label={`Steps of ${summary.id}`}>
          <thead>
            <tr><th scope="col">Step</th><th scope="col">Name</th><th scope="col">Command</th><th scope="col">Approval</th></tr>
          </thead>
          <tbody>
            {manifest.steps.map((step) => (
              <tr key={step.id}>
                <td><code>{step.id}</code></td>
                <td>{step.name ?? "—"}</td>
                <td class="prompt"><code>{step.command}</code></td>
                <td>{step.approval ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {mayWrite ? (
        <>
          <h3>Dry run</h3>
          <div class="actions">
            <button type="button" disabled={action.busy} onClick={runDry}>{current ? "Dry run again" : "Dry run"}</button>
            <button type="button" onClick={onClose}>Close</button>
          </div>
          {current ? <DryRunTable dryRun={dryRun.result} /> : (
            <p class="hint">
              {dryRun === undefined ? "A dry run asks the policy about each step without running anything; start comes after it." : "The file changed since the dry run: run it again."}
            </p>
          )}
          {current ? (
            <form class="playbook-start" onSubmit={start}>
              <h3>Start a run</h3>
              <label>
                Key (optional){" "}
                <input value={key} placeholder={`cron:playbook-${summary.id}`} size={32} onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)} />
              </label>
              <SelectField label="Lane" value={lane} options={LANES} onChange={setLane} />
              <div class="actions">
                <button type="submit" class="primary" disabled={action.busy}>Start run</button>
              </div>
            </form>
          ) : null}
        </>
      ) : (
        <div class="actions">
          <p class="hint">Dry runs and starting runs need the operator.write scope.</p>
          <button type="button" onClick={onClose}>Close</button>
        </div>
      )}
      {started ? (
        <p role="status" class="ok">
          Run started in <code>{started.key}</code> / {started.lane}: <a href={`/ui/runs/${encodeURIComponent(started.runId)}`}>open run {started.runId}</a>
        </p>
      ) : null}
      <ErrorNote error={action.error} />
    </section>
  )
}
