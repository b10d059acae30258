/**
 * Creating an "approve always" override (`POST /policy/overrides`): agent,
 * tool id, glob pattern (`*` any run, `?` one character), optional workspace
 * (a DNS label) and optional expiry (a local date and time, sent as ISO 8601
 * UTC; it must lie in the future). The gateway validates every field and its
 * 400 names the field. Announced as `policy_override.created`.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { PolicyOverrideCreateRequest } from "./types.ts"

const EMPTY = { agent_id: "default", tool_id: "", pattern: "", workspace_id: "", expires_at: "" }

/** The create form; `onCreated` gets a one-line confirmation. */
export const CreateOverride = ({ onCreated }: { onCreated: (message: string) => void }) => {
  const [form, setForm] = useState(EMPTY)
  const action = useAction()
  const field = (name: keyof typeof EMPTY) => ({
    value: form[name],
    onInput: (e: Event) => setForm({ ...form, [name]: (e.currentTarget as HTMLInputElement).value })
  })

  const submit = action.submit(async () => {
    const payload: PolicyOverrideCreateRequest = {
      agent_id: form.agent_id,
      tool_id: form.tool_id,
      pattern: form.pattern,
      ...(form.workspace_id.trim() === "" ? {} : { workspace_id: form.workspace_id }),
      ...(form.expires_at === "" ? {} : { expires_at: new Date(form.expires_at).toISOString() })
    }
    const answer = await call((c) => c.policyBundle.createOverride({ payload }))
    setForm({ ...EMPTY, agent_id: form.agent_id })
    onCreated(`Override ${answer.override.tool_id} ${answer.override.pattern} created for agent ${answer.override.agent_id}.`)
  })

  return (
    <section class="panel" aria-labelledby="create-override-title">
      <h3 id="create-override-title">Create an override</h3>
      <form onSubmit={submit} class="override-form">
        <label>Agent <input required {...field("agent_id")} /></label>
        <label>Tool id <input required placeholder="tool.exec" {...field("tool_id")} /></label>
        <label>Pattern <input required placeholder="git status*" aria-describedby="pattern-help" {...field("pattern")} /></label>
        <label>Workspace (optional) <input {...field("workspace_id")} /></label>
        <label>Expires at (optional) <input type="datetime-local" {...field("expires_at")} /></label>
        <p id="pattern-help" class="hint">A glob on the tool call's match target: <code>*</code> any run of characters, <code>?</code> one. It never relaxes a deny of another rule.</p>
        <div class="actions"><button type="submit" class="primary" disabled={action.busy}>Create override</button></div>
      </form>
      <ErrorNote error={action.error} />
    </section>
  )
}
