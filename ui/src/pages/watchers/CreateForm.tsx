/**
 * A new watcher (`POST /watchers`, operator.write): its plan id, trigger type
 * and that type's settings: `periodic` an interval (ms, at least 1000),
 * `webhook` a secret handle (the `handle_id` of a stored secret; the gateway
 * checks it exists), and for every type an optional playbook a firing runs
 * (with `SVC_AUTOMATION_ENABLED=1`). The gateway checks the rest and answers
 * a 400 naming the field, shown here.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { MIN_INTERVAL_MS, TRIGGER_TYPES, type TriggerType } from "./types.ts"

const HINT: Record<TriggerType, string> = {
  periodic: "Fires once per interval.",
  plan_complete: "Fires when a run of the plan succeeds or fails.",
  webhook: "Fires on a call to POST /watchers/<id>/trigger/webhook signed with the secret (docs/automation.md)."
}

/** The form; `onCreated` reloads the list. */
export const CreateForm = ({ onCreated }: { onCreated: (id: number) => void }) => {
  const [type, setType] = useState<TriggerType>("periodic")
  const action = useAction()

  const submit = action.submit(async (form) => {
    const value = (name: string) => ((form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? "").trim()
    const playbook = value("playbook_id")
    const trigger_config: Record<string, unknown> = {
      ...(playbook === "" ? {} : { playbook_id: playbook }),
      ...(type === "periodic" ? { interval_ms: Number(value("interval_ms")) } : {}),
      ...(type === "webhook" ? { secret_handle: value("secret_handle") } : {})
    }
    const created = await call((c) => c.watchers.create({ payload: { plan_id: value("plan_id"), trigger_type: type, trigger_config } }))
    form.reset()
    setType("periodic")
    onCreated(created.id)
    return `Watcher ${created.id} created for ${created.plan_id}.`
  })

  return (
    <form class="panel" onSubmit={submit} aria-labelledby="watcher-new-title">
      <h2 id="watcher-new-title">New watcher</h2>
      <label>Plan id <input name="plan_id" required maxLength={128} autoComplete="off" /></label>
      <SelectField label="Trigger" name="trigger_type" value={type} options={TRIGGER_TYPES} onChange={setType} />
      <p class="hint">{HINT[type]}</p>
      {type === "periodic" ? (
        <label>Interval (ms) <input name="interval_ms" type="number" min={MIN_INTERVAL_MS} step={1} required defaultValue="60000" /></label>
      ) : null}
      {type === "webhook" ? (
        <label>Secret handle <input name="secret_handle" required maxLength={256} autoComplete="off" spellcheck={false} /></label>
      ) : null}
      <label>Playbook id (optional) <input name="playbook_id" autoComplete="off" /></label>
      <div class="actions">
        <button type="submit" class="primary" disabled={action.busy}>{action.busy ? "Creating…" : "Create watcher"}</button>
      </div>
      {action.done ? <p role="status" class="ok">{action.done}</p> : null}
      <ErrorNote error={action.error} />
    </form>
  )
}
