/** The board's scope (tenant, agent, workspace), each applied when committed (Enter or leaving the field). */
import type { WorkScope } from "./types.ts"

const FIELDS: ReadonlyArray<readonly [keyof WorkScope, string]> = [["tenant_id", "Tenant"], ["agent_id", "Agent"], ["workspace_id", "Workspace"]]

/** The three fields; `onChange` gets the new scope (an emptied field goes back to `default`). */
export const ScopeFields = ({ scope, onChange }: { scope: WorkScope; onChange: (scope: WorkScope) => void }) => {
  const commit = (key: keyof WorkScope, input: HTMLInputElement) => {
    const value = input.value.trim() || "default"
    input.value = value
    if (value !== scope[key]) onChange({ ...scope, [key]: value })
  }
  return (
    <fieldset class="toolbar">
      <legend>Scope</legend>
      {FIELDS.map(([key, label]) => (
        <label key={key} class="inline">
          {label}{" "}
          <input value={scope[key]} size={14} maxLength={200}
            onChange={(e) => commit(key, e.currentTarget as HTMLInputElement)}
            onKeyDown={(e) => { if (e.key === "Enter") commit(key, e.currentTarget as HTMLInputElement) }} />
        </label>
      ))}
    </fieldset>
  )
}
