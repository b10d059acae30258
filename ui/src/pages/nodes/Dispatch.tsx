/**
 * Dispatch a test task to one node: a capability it has ready and
 * allowlisted (dispatchable.ts), the action (a JSON object, sent as
 * `task.execute`'s `action`) and a timeout; then the answer: the task's ids,
 * the node's result and evidence, and the `attempt.evidence` the node
 * reported while it ran (live events of the task's run). `POST /nodes/:node_id/dispatch` (operator.admin: the page
 * shows this panel only to principals holding it).
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { onEvent } from "../../app/live.ts"
import { useAction } from "../../app/useAction.ts"
import { capabilityLabel } from "../../components/Capabilities.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Json } from "../../components/Json.tsx"
import { splitReady } from "./dispatchable.ts"
import type { AttemptEvidence, NodeDispatchResponse, NodeSummary } from "./types.ts"

/** Evidence events kept for matching a dispatch's run (the event may arrive before the answer). */
const EVIDENCE_KEPT = 50
const DEFAULT_ACTION = JSON.stringify({ text: "hello from the console" }, null, 2)

/** Parses the action field: a JSON object, or the reason it is not one. */
const parseAction = (text: string): { action: Record<string, unknown> } | { problem: string } => {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? { action: value as Record<string, unknown> }
      : { problem: "The action must be a JSON object, e.g. {\"text\": \"hello\"}." }
  } catch (error) {
    return { problem: `The action is not valid JSON: ${error instanceof Error ? error.message : String(error)}` }
  }
}

/** The `attempt.evidence` events seen since the panel opened, newest last. */
const useEvidenceEvents = (): ReadonlyArray<AttemptEvidence> => {
  const [events, setEvents] = useState<ReadonlyArray<AttemptEvidence>>([])
  useEffect(() => onEvent((event) => {
    if (event.type === "attempt.evidence") setEvents((all) => [...all, event.payload as AttemptEvidence].slice(-EVIDENCE_KEPT))
  }), [])
  return events
}

/** The panel for `node`. */
export const Dispatch = ({ node, onClose }: { node: NodeSummary; onClose: () => void }) => {
  const ready = splitReady(node).dispatchable
  const [capability, setCapability] = useState(ready[0]?.id ?? "")
  const [actionText, setActionText] = useState(DEFAULT_ACTION)
  const [timeoutMs, setTimeoutMs] = useState("30000")
  const action = useAction()
  const [answer, setAnswer] = useState<NodeDispatchResponse | undefined>(undefined)
  const evidence = useEvidenceEvents()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    setAnswer(undefined)
    action.reset()
  }, [node.node_id])
  useEffect(() => {
    if (!ready.some((c) => c.id === capability) && ready[0]) setCapability(ready[0].id)
  }, [ready.map((c) => c.id).join(",")])

  const dispatch = action.submit(async () => {
    const parsed = parseAction(actionText)
    if ("problem" in parsed) throw new Error(parsed.problem)
    const timeout = Number(timeoutMs)
    setAnswer(undefined)
    setAnswer(await call((c) =>
      c.nodes.dispatch({
        params: { node_id: node.node_id },
        payload: { capability, action: parsed.action, ...(timeoutMs.trim() === "" || !Number.isFinite(timeout) ? {} : { timeout_ms: timeout }) }
      })
    ))
  })

  const reported = answer ? evidence.filter((e) => e.run_id === answer.run_id && e.attempt_id === answer.attempt_id) : []
  const name = node.label ?? node.node_id

  return (
    <section class="panel" aria-labelledby="dispatch-title">
      <h2 id="dispatch-title" tabIndex={-1} ref={heading}>Dispatch a test task to {name}</h2>
      {ready.length === 0 ? <p class="hint">This node has no capability a dispatch would accept: it must be connected, approved, and declare an allowlisted capability ready.</p> : null}
      <form onSubmit={dispatch}>
        <label>
          Capability{" "}
          <select value={capability} onChange={(e) => setCapability((e.currentTarget as HTMLSelectElement).value)}>
            {ready.map((c) => <option key={c.id} value={c.id}>{capabilityLabel(c)}</option>)}
          </select>
        </label>
        <label>
          Action (JSON object)
          <textarea class="action" value={actionText} spellcheck={false} onInput={(e) => setActionText((e.currentTarget as HTMLTextAreaElement).value)} />
        </label>
        <label>
          Timeout (ms){" "}
          <input type="number" min={1} max={600000} value={timeoutMs} onInput={(e) => setTimeoutMs((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy || ready.length === 0}>{action.busy ? "Dispatching…" : "Dispatch"}</button>
          <button type="button" onClick={onClose}>Close</button>
        </div>
      </form>
      <ErrorNote error={action.error} />
      {answer ? (
        <section aria-labelledby="dispatch-result">
          <h3 id="dispatch-result">Result</h3>
          <p role="status" class="ok">Task {answer.run_id} answered by {answer.node_id}.</p>
          <dl class="facts">
            <dt>Run / step / attempt</dt><dd><code>{answer.run_id}</code> / {answer.step_id} / <code>{answer.attempt_id}</code></dd>
          </dl>
          <Json value={answer.result ?? null} label="Task result" />
          {answer.evidence !== undefined ? <Json value={answer.evidence} label="Evidence in the answer" /> : null}
          <h3>Evidence reported while running</h3>
          {reported.length === 0
            ? <p class="hint">None (the node sent no attempt.evidence for this task).</p>
            : reported.map((e, i) => <Json key={i} value={e.evidence} label={`Reported evidence ${i + 1}`} />)}
        </section>
      ) : null}
    </section>
  )
}
