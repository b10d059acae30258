/**
 * The composer: Enter sends (Shift+Enter starts a new line), and so does the
 * Send button. A line starting with `/` is a slash command (operator.admin).
 * The field keeps focus and empties once the text is sent.
 */
import { useState } from "preact/hooks"

/** The composer; `onSend` gets the trimmed text; nothing is sent while `busy`. */
export const Composer = ({ busy, canCommand, onSend }: { busy: boolean; canCommand: boolean; onSend: (text: string) => void }) => {
  const [text, setText] = useState("")
  const submit = (event?: Event) => {
    event?.preventDefault()
    const value = text.trim()
    if (value === "" || busy) return
    setText("")
    onSend(value)
  }
  return (
    <form class="composer" onSubmit={submit}>
      <label for="chat-message">Message</label>
      <textarea id="chat-message" rows={3} maxLength={32_000} value={text} aria-describedby="chat-message-hint"
        onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)}
        onKeyDown={(e) => {
          if (e.key === "Enter" && !e.shiftKey && !e.isComposing) submit(e)
        }} />
      <p id="chat-message-hint" class="hint">
        Enter sends, Shift+Enter starts a new line.{" "}
        {canCommand ? "A line starting with / is a slash command (/help lists them)." : "Slash commands need operator.admin."}
      </p>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || text.trim() === ""}>{busy ? "Agent is answering…" : "Send"}</button>
      </div>
    </form>
  )
}
