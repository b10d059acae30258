/**
 * One exported chain: its events in order (step, time, action type, hashes),
 * the verification the gateway made while exporting it, and two actions:
 * Verify (`POST /audit/verify` with the events as exported: every hash and
 * link recomputed, nothing read from the database) and Download (the export
 * as a JSON file, to verify later or elsewhere).
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { downloadJson, fileStamp } from "../../components/download.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Json } from "../../components/Json.tsx"
import type { AuditEvent, AuditReceiptBundle, AuditVerifyResult } from "./types.ts"
import { Verification } from "./Verification.tsx"

/** What an event's action is, for a person (`null` once anonymized). */
const actionType = (event: AuditEvent): string => {
  const action = event.action as { type?: unknown } | null
  return action === null ? "(erased)" : typeof action.type === "string" ? action.type : "(untyped)"
}

/** The chain panel. */
export const Chain = ({ bundle }: { bundle: AuditReceiptBundle }) => {
  /** The verification of the events as they were when Verify was pressed (by the last event's hash). */
  const [verified, setVerified] = useState<{ result: AuditVerifyResult; head: string; count: number } | undefined>(undefined)
  const action = useAction()
  const head = bundle.events.at(-1)?.event_hash ?? ""
  const current = verified !== undefined && verified.head === head && verified.count === bundle.events.length ? verified : undefined

  const verify = () =>
    action.run(async () => {
      const result = await call((c) => c.audit.verify({ payload: { events: bundle.events } }))
      setVerified({ result, head, count: bundle.events.length })
    })

  return (
    <section class="panel" aria-labelledby="chain-title">
      <h2 id="chain-title">Chain {bundle.plan_id}</h2>
      <dl class="facts">
        <dt>Events</dt><dd>{bundle.events.length}</dd>
        <dt>Exported at</dt><dd>{bundle.exported_at}</dd>
      </dl>
      <Verification result={bundle.chain_verification} label="Verified by the gateway on export" />
      <div class="actions">
        <button type="button" class="primary" disabled={action.busy} onClick={verify}>{action.busy ? "Verifying…" : "Verify chain"}</button>
        <button type="button" onClick={() => downloadJson(bundle, `audit-${bundle.plan_id}-${fileStamp(bundle.exported_at)}.json`)}>Download</button>
      </div>
      <div role="status">{current ? <Verification result={current.result} label="Verification" /> : null}</div>
      <ErrorNote error={action.error} />
      <table class="list" aria-label={`Events of chain ${bundle.plan_id}`}>
        <thead>
          <tr><th scope="col">Step</th><th scope="col">Occurred at</th><th scope="col">Action</th><th scope="col">Event hash</th><th scope="col">Previous hash</th></tr>
        </thead>
        <tbody>
          {bundle.events.map((event) => (
            <tr key={event.id}>
              <td>{event.step_index}</td>
              <td><time dateTime={event.occurred_at}>{event.occurred_at}</time></td>
              <td>{actionType(event)}</td>
              <td><code title={event.event_hash}>{event.event_hash.slice(0, 12)}</code></td>
              <td><code title={event.prev_hash ?? ""}>{event.prev_hash?.slice(0, 12) ?? "—"}</code></td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>Events as exported (JSON)</summary>
        <Json value={bundle.events} label={`Events of chain ${bundle.plan_id} as JSON`} />
      </details>
    </section>
  )
}
