/**
 * Storing a new secret (`POST /secrets?agent_id=`): a scope (1–256
 * characters: what the secret is for, e.g. `provider:openai`) and the value.
 * The value field is write-only: a password field read once on submit,
 * cleared at once (also when the call fails), never kept in state and never
 * shown back; the gateway answers only the handle. With the `env` provider
 * the value is left empty (the scope names the environment variable); the
 * `db` provider answers 400 for an empty one.
 */
import { Redacted } from "effect"
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { SecretHandle } from "./types.ts"

/** The store form of `agent`'s secrets; `onStored` gets the new handle. */
export const StoreSecret = ({ agent, onStored }: { agent: string; onStored: (handle: SecretHandle) => void }) => {
  const [scope, setScope] = useState("")
  const action = useAction()

  const submit = action.submit(async (form) => {
    const field = form.elements.namedItem("secret-value") as HTMLInputElement
    const value = field.value === "" ? undefined : Redacted.make(field.value)
    field.value = ""
    const answer = await call((c) => c.secrets.store({ query: { agent_id: agent }, payload: { scope: scope.trim(), ...(value === undefined ? {} : { value }) } }))
    setScope("")
    onStored(answer.handle)
  })

  return (
    <section class="panel" aria-labelledby="store-secret-title">
      <h2 id="store-secret-title">Store a new secret</h2>
      <form onSubmit={submit}>
        <label>
          Scope{" "}
          <input value={scope} required maxLength={256} placeholder="provider:openai" onInput={(e) => setScope((e.currentTarget as HTMLInputElement).value)} />
        </label>
        <label>
          Value{" "}
          <input name="secret-value" type="password" autoComplete="off" spellcheck={false} aria-describedby="secret-value-help" />
        </label>
        <p id="secret-value-help" class="hint">
          Write-only: sent once over this session, stored encrypted; no page or route shows it again. With the <code>env</code>{" "}
          provider leave it empty: the scope names the environment variable.
        </p>
        <div class="actions"><button type="submit" class="primary" disabled={action.busy}>Store secret</button></div>
      </form>
      <ErrorNote error={action.error} />
    </section>
  )
}
