/**
 * A device token just issued, shown once: the gateway stores only its digest,
 * so this is the only time anyone sees it. A Copy button (the Clipboard API),
 * a warning, and Done to remove it from the page; nothing keeps it elsewhere.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import type { DeviceTokenIssueResponse } from "./types.ts"

/** The issued token's panel; `onDismiss` forgets it. */
export const IssuedToken = ({ issued, onDismiss }: { issued: DeviceTokenIssueResponse; onDismiss: () => void }) => {
  const [copied, setCopied] = useState<string | undefined>(undefined)
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    setCopied(undefined)
  }, [issued.token_id])
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(issued.token)
      setCopied("Copied to the clipboard.")
    } catch {
      setCopied("The browser refused the clipboard: select the token and copy it by hand.")
    }
  }
  return (
    <section class="panel" aria-labelledby="issued-title">
      <h2 id="issued-title" tabIndex={-1} ref={heading}>Token issued for {issued.device_id}</h2>
      <p class="secret-once">
        <strong>Copy it now: it is shown only this once.</strong> The gateway keeps only a digest of it; if it is
        lost, issue another and revoke this one.
        <br />
        Token: <code class="token">{issued.token}</code>
      </p>
      <dl class="facts">
        <dt>Token id</dt><dd><code>{issued.token_id}</code></dd>
        <dt>Role</dt><dd>{issued.role}</dd>
        <dt>Scopes</dt><dd>{issued.scopes.join(", ") || "none"}</dd>
        <dt>Issued</dt><dd>{issued.issued_at}</dd>
        <dt>Expires</dt><dd>{issued.expires_at ?? "never (persistent)"}</dd>
      </dl>
      <div class="actions">
        <button type="button" class="primary" onClick={copy}>Copy token</button>
        <button type="button" onClick={onDismiss}>Done, hide it</button>
        {copied ? <span role="status">{copied}</span> : null}
      </div>
    </section>
  )
}
