/**
 * The routing configuration as editable JSON: checked on every keystroke
 * against the schema the gateway decodes it with (validate.ts), the issue
 * shown (path and message) and Save disabled while it is invalid or
 * unchanged. Save stores a new revision (`PUT /routing/config`). An edit in
 * progress is kept when another revision arrives meanwhile, with a note.
 */
import { useMemo, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { ReasonField } from "../../components/ReasonField.tsx"
import type { RoutingConfigRecord } from "./types.ts"
import { checkRoutingConfig } from "./validate.ts"

/** The configuration as the editor shows it (2-space JSON). */
export const pretty = (value: unknown): string => JSON.stringify(value, null, 2)

/** The editor of the revision in force; `onSaved` reloads the page's data. */
export const Editor = ({ current, onSaved }: { current: RoutingConfigRecord; onSaved: () => void }) => {
  const stored = pretty(current.config)
  /** The edited text and the revision it started from; undefined while the editor follows the revision in force. */
  const [draft, setDraft] = useState<{ text: string; from: number } | undefined>(undefined)
  const [reason, setReason] = useState("")
  const action = useAction()
  const text = draft?.text ?? stored
  const checked = useMemo(() => checkRoutingConfig(text, reason), [text, reason])
  const changed = draft !== undefined && (draft.text !== stored || draft.from !== current.revision)

  const save = action.submit(async () => {
    if (!checked.ok) return
    const saved = await call((c) => c.routing.update({ payload: checked.body }))
    setDraft(undefined)
    setReason("")
    onSaved()
    return `Saved as revision ${saved.revision}.`
  })

  return (
    <form class="panel" onSubmit={save} aria-labelledby="routing-edit-title">
      <h2 id="routing-edit-title">Edit</h2>
      <label for="routing-config">Configuration (JSON)</label>
      <textarea
        id="routing-config"
        class="routing-config"
        spellcheck={false}
        value={text}
        aria-invalid={!checked.ok}
        aria-describedby="routing-check routing-help"
        onInput={(e) => setDraft({ text: (e.currentTarget as HTMLTextAreaElement).value, from: draft?.from ?? current.revision })}
      />
      <p id="routing-help" class="hint">
        <code>{"{\"v\": 1, \"messenger\": {\"default_agent_id\": \"…\", \"threads\": {\"<thread id>\": \"<agent id>\"}}}"}</code>;
        unknown keys are refused at every depth (docs/routing.md).
      </p>
      <p id="routing-check" aria-live="polite" class={checked.ok ? "hint" : "error"}>
        {checked.ok ? (changed ? "Valid configuration." : "No changes.") : checked.issue}
      </p>
      {draft !== undefined && draft.from !== current.revision ? (
        <p class="hint">
          Revision {current.revision} was stored while you edited (you started from revision {draft.from}); saving replaces it.
        </p>
      ) : null}
      <ReasonField value={reason} maxLength={1024} onInput={setReason} />
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy || !checked.ok || !changed}>{action.busy ? "Saving…" : "Save"}</button>
        <button type="button" disabled={action.busy || draft === undefined} onClick={() => setDraft(undefined)}>Discard changes</button>
      </div>
      {action.done ? <p role="status" class="ok">{action.done}</p> : null}
      <ErrorNote error={action.error} />
    </form>
  )
}
