/**
 * The panel confirming a final action on one item with an optional reason
 * (revoke an override, disable an auth profile): a heading focused when the
 * panel opens or the item changes, an optional hint, the reason field, the
 * danger button and Cancel, and the failure explained.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"
import { useAction } from "../app/useAction.ts"
import { ErrorNote } from "./ErrorNote.tsx"
import { ReasonField } from "./ReasonField.tsx"

/** The panel; `onConfirm` gets the trimmed reason (`undefined` when empty) and answers the message `onDone` gets. */
export const ReasonPanel = ({ id, itemKey, level, title, hint, maxLength, confirm, onConfirm, onClose, onDone }: {
  /** The heading's id (the panel is labelled by it). */
  id: string
  /** Identifies the item: a change clears the reason and the error and focuses the heading again. */
  itemKey: string
  /** The heading's level in the page's outline. */
  level: 2 | 3
  title: ComponentChildren
  hint?: ComponentChildren
  /** The gateway's limit for the reason, in characters. */
  maxLength: number
  /** The submit button's text. */
  confirm: string
  onConfirm: (reason: string | undefined) => Promise<string>
  onClose: () => void
  onDone: (message: string) => void
}) => {
  const [reason, setReason] = useState("")
  const action = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  const shownKey = useRef(itemKey)
  useEffect(() => {
    heading.current?.focus()
    // Cleared only when the item changes: the effect runs after the first paint, when a quick hand (or a test) may
    // already have typed the reason.
    if (shownKey.current === itemKey) return
    shownKey.current = itemKey
    setReason("")
    action.reset()
  }, [itemKey])

  const submit = action.submit(async () => {
    const trimmed = reason.trim()
    onDone(await onConfirm(trimmed === "" ? undefined : trimmed))
  })
  const Heading = level === 2 ? "h2" : "h3"

  return (
    <section class="panel" aria-labelledby={id}>
      <Heading id={id} tabIndex={-1} ref={heading}>{title}</Heading>
      {hint ? <p class="hint">{hint}</p> : null}
      <form onSubmit={submit}>
        <ReasonField value={reason} maxLength={maxLength} onInput={setReason} />
        <div class="actions">
          <button type="submit" class="danger" disabled={action.busy}>{confirm}</button>
          <button type="button" onClick={onClose}>Cancel</button>
        </div>
      </form>
      <ErrorNote error={action.error} />
    </section>
  )
}
