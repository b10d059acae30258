/**
 * The thread of the chat (1–256 characters; default `main`): with the agent
 * and the channel `console` it names the session. Applied when committed
 * (Enter or leaving the field), like the agent field.
 */
import { useDraft } from "../../app/useDraft.ts"
import { DEFAULT_THREAD } from "./types.ts"

/** The thread field; `onChange` gets the trimmed thread (`main` when emptied). */
export const ThreadField = ({ thread, onChange }: { thread: string; onChange: (thread: string) => void }) => {
  const [draft, setDraft] = useDraft(thread)
  const commit = () => {
    const value = draft.trim() || DEFAULT_THREAD
    setDraft(value)
    if (value !== thread) onChange(value)
  }
  return (
    <label>
      Thread{" "}
      <input value={draft} size={16} maxLength={256}
        onInput={(e) => setDraft((e.currentTarget as HTMLInputElement).value)}
        onChange={commit}
        onKeyDown={(e) => { if (e.key === "Enter") commit() }} />
    </label>
  )
}
