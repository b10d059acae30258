/**
 * The agent whose secrets or auth profiles a page shows (1–64 letters,
 * digits, `_`, `-`, `.`; default `default`). Applied when the field is
 * committed (Enter or leaving it), not on every keystroke.
 */
import { DEFAULT_AGENT_ID } from "../../../services/shared/agent.ts"

export { DEFAULT_AGENT_ID }

/** The agent field; `onChange` gets the trimmed id (`default` when emptied). */
export const AgentField = ({ agent, onChange }: { agent: string; onChange: (agent: string) => void }) => (
  <label>
    Agent{" "}
    <input
      value={agent}
      size={16}
      maxLength={64}
      onChange={(e) => onChange((e.currentTarget as HTMLInputElement).value.trim() || DEFAULT_AGENT_ID)}
    />
  </label>
)
