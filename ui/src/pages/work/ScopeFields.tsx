/**
 * The board's scope (tenant, agent, workspace), each applied when committed
 * (Enter or leaving the field). What is typed is kept in the field's own
 * state until then, so a live reload of the board does not undo it.
 */
import { useDraft } from "../../app/useDraft.ts"
import type { WorkScope } from "./types.ts"

const FIELDS: ReadonlyArray<readonly [keyof WorkScope, string]> = [["tenant_id", "Tenant"], ["agent_id", "Agent"], ["workspace_id", "Workspace"]]

/** The three fields; `onChange` gets the new scope (an emptied field goes back to `default`). */
export const ScopeFields = ({ scope, onChange }: { scope: WorkScope; onChange: (scope: WorkScope) => void }) => {
  const [draft, setDraft] = useDraft<WorkScope>(scope, `${scope.tenant_id}\u0000${scope.agent_id}\u0000${scope.workspace_id}`)
  const commit = (key: keyof WorkScope) => {
    const value = draft[key].trim() || "default"
    setDraft({ ...draft, [key]: value })
    if (value !== scope[key]) onChange({ ...scope, [key]: value })
  }
  return (
    <fieldset class="toolbar">
      <legend>Scope</legend>
      {FIELDS.map(([key, label]) => (
        <label key={key} class="inline">
          {label}{" "}
          <input value={draft[key]} size={14} maxLength={200}
            onInput={(e) => setDraft({ ...draft, [key]: (e.currentTarget as HTMLInputElement).value })}
            onChange={() => commit(key)}
            onKeyDown={(e) => { if (e.key === "Enter") commit(key) }} />
        </label>
      ))}
    </fieldset>
  )
}
