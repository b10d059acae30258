/**
 * The agent whose secrets, auth profiles or memory a page shows (1–64
 * letters, digits, `_`, `-`, `.`; default `default`). Applied when the field
 * is committed (Enter or leaving it), not on every keystroke; what is typed
 * is kept in the field's own state until then, so a live reload of the page
 * does not undo it.
 */
import { useDraft } from "../app/useDraft.ts"
import { DEFAULT_AGENT_ID } from "../../../services/shared/agent.ts"

export { DEFAULT_AGENT_ID }

/** The agent field; `onChange` gets the trimmed id (`default` when emptied). */
export const AgentField = ({ agent, onChange }: { agent: string; onChange: (agent: string) => void }) => {
  const [draft, setDraft] = useDraft(agent)
  const commit = () => {
    const value = draft.trim() || DEFAULT_AGENT_ID
    setDraft(value)
    if (value !== agent) onChange(value)
  }
  return (
    <label>
      Agent{" "}
      <input
        value={draft}
        size={16}
        maxLength={64}
        onInput={(e) => setDraft((e.currentTarget as HTMLInputElement).value)}
        onChange={commit}
        onKeyDown={(e) => { if (e.key === "Enter") commit() }}
      />
    </label>
  )
}
