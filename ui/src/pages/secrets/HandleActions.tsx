/**
 * Rotating or revoking one handle. Rotate (`POST /secrets/:id/rotate`)
 * stores a new value under a new handle, revokes the old one and points the
 * auth profiles and webhook watchers that named it at the new handle; the new
 * value's field is write-only like the store form's. Revoke
 * (`DELETE /secrets/:id`) is final: the auth profiles that name the handle are
 * disabled, which the panel says before it is confirmed.
 */
import { Redacted } from "effect"
import { useEffect, useRef } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import type { AuthProfile, SecretHandle } from "./types.ts"

/** What the panel does. */
export type HandleAction = "rotate" | "revoke"

/** The panel of `action` on `handle`; `users` are the profiles naming it; `onDone` gets a confirmation. */
export const HandleActions = ({ handle, action, users, onClose, onDone }: {
  handle: SecretHandle
  action: HandleAction
  users: ReadonlyArray<AuthProfile> | undefined
  onClose: () => void
  onDone: (message: string) => void
}) => {
  const progress = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    progress.reset()
  }, [handle.handle_id, action])

  const run = progress.submit(async (form) => {
    if (action === "rotate") {
      const field = form.elements.namedItem("rotate-value") as HTMLInputElement
      const value = Redacted.make(field.value)
      field.value = ""
      const answer = await call((c) => c.secrets.rotate({ params: { id: handle.handle_id }, payload: { value } }))
      onDone(`Secret ${handle.scope} rotated: new handle ${answer.handle.handle_id} replaces ${handle.handle_id}.`)
    } else {
      await call((c) => c.secrets.revoke({ params: { id: handle.handle_id } }))
      onDone(`Secret ${handle.scope} revoked (handle ${handle.handle_id}).`)
    }
  })

  const names = (users ?? []).map((p) => `${p.provider} (${p.auth_profile_id})`)
  return (
    <section class="panel" aria-labelledby="handle-action-title">
      <h2 id="handle-action-title" tabIndex={-1} ref={heading}>
        {action === "rotate" ? "Rotate" : "Revoke"} secret {handle.scope} <code>{handle.handle_id}</code>
      </h2>
      <form onSubmit={run}>
        {action === "rotate" ? (
          <>
            <label>
              New value{" "}
              <input name="rotate-value" type="password" autoComplete="off" spellcheck={false} required aria-describedby="rotate-help" />
            </label>
            <p id="rotate-help" class="hint">
              The new value gets a new handle; the old handle is revoked and {names.length > 0 ? `the auth profiles ${names.join(", ")}` : "the auth profiles and webhook watchers that name it"} switch to the new one.
            </p>
          </>
        ) : (
          <p class="hint">
            Revoking is final: the handle no longer resolves
            {names.length > 0 ? `, and the auth profiles ${names.join(", ")} are disabled` : ", and auth profiles and watchers that name it stop working"}.
          </p>
        )}
        <div class="actions">
          <button type="submit" class={action === "rotate" ? "primary" : "danger"} disabled={progress.busy}>{action === "rotate" ? "Rotate secret" : "Revoke secret"}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
      <ErrorNote error={progress.error} />
    </section>
  )
}
