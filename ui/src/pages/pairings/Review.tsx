/**
 * The review panel of one pairing: the node's identity (device id, label,
 * platform and address it connected with, last handshake) and the
 * capabilities it advertised; then approve with a trust level and a
 * capability allowlist (the advertised capabilities, each selectable, their
 * versions pinned or not, plus other ids), deny, or revoke (confirmed), each
 * with an optional reason. `POST /pairings/:id/approve|deny|revoke`; the
 * answer's pairing goes to `onDecided` (the page shows the outcome and
 * reloads).
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useAction } from "../../app/useAction.ts"
import { Capabilities, capabilityLabel } from "../../components/Capabilities.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { Json } from "../../components/Json.tsx"
import { ReasonField } from "../../components/ReasonField.tsx"
import type { CapabilityDescriptor, Pairing, TrustLevel } from "./types.ts"

/** Metadata keys shown as facts; the whole metadata is shown when it has others. */
const SHOWN_METADATA = new Set(["platform", "mode", "version", "ip"])

/** The allowlist the form builds: the selected advertised capabilities (pinned or not) and the extra ids. */
const allowlistOf = (
  advertised: ReadonlyArray<CapabilityDescriptor>,
  selected: ReadonlyArray<boolean>,
  pin: boolean,
  extra: string
): Array<CapabilityDescriptor> => {
  const chosen = advertised.flatMap((c, i) => (selected[i] ? [pin || c.version === undefined ? c : { id: c.id }] : []))
  const ids = new Set(chosen.map((c) => c.id))
  for (const id of extra.split(/[\s,]+/)) {
    if (id === "" || ids.has(id)) continue
    ids.add(id)
    chosen.push({ id })
  }
  return chosen
}

/** The panel; `onDecided` gets the pairing the gateway answered. */
export const Review = ({ pairing, onClose, onDecided }: {
  pairing: Pairing
  onClose: () => void
  onDecided: (pairing: Pairing) => void
}) => {
  const advertised = pairing.node.capabilities
  const [trust, setTrust] = useState<TrustLevel>("remote")
  const [selected, setSelected] = useState<ReadonlyArray<boolean>>(() => advertised.map(() => true))
  const [pin, setPin] = useState(true)
  const [extra, setExtra] = useState("")
  const [reason, setReason] = useState("")
  const [confirmRevoke, setConfirmRevoke] = useState(false)
  const progress = useAction()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.focus()
    setSelected(advertised.map(() => true))
    setConfirmRevoke(false)
    progress.reset()
  }, [pairing.pairing_id, pairing.status])

  const act = async (action: "approve" | "deny" | "revoke") => {
    const params = { id: pairing.pairing_id }
    const why = reason.trim() === "" ? {} : { reason: reason.trim() }
    await progress.run(async () => {
      const answer = await call((c) =>
        action === "approve"
          ? c.pairing.approve({ params, payload: { trust_level: trust, capability_allowlist: allowlistOf(advertised, selected, pin, extra), ...why } })
          : action === "deny"
          ? c.pairing.deny({ params, payload: why })
          : c.pairing.revoke({ params, payload: why })
      )
      setReason("")
      onDecided(answer.pairing)
    })
    setConfirmRevoke(false)
  }

  const { node } = pairing
  const metadata = (node.metadata ?? {}) as Record<string, unknown>
  const fact = (key: string) => (typeof metadata[key] === "string" ? (metadata[key] as string) : undefined)
  const allowlist = allowlistOf(advertised, selected, pin, extra)

  return (
    <section class="panel" aria-labelledby="pairing-title">
      <h2 id="pairing-title" tabIndex={-1} ref={heading}>Pairing {pairing.pairing_id} ({pairing.status})</h2>
      <dl class="facts">
        <dt>Node id</dt><dd><code>{node.node_id}</code></dd>
        <dt>Label</dt><dd>{node.label ?? "—"}</dd>
        <dt>Platform</dt><dd>{[fact("platform"), fact("mode"), fact("version")].filter(Boolean).join(" · ") || "—"}</dd>
        <dt>Address</dt><dd>{fact("ip") ?? "—"}</dd>
        <dt>Last seen</dt><dd>{node.last_seen_at}</dd>
        <dt>Requested</dt><dd>{pairing.requested_at}</dd>
        <dt>Advertised</dt><dd><Capabilities list={advertised} /></dd>
        {pairing.status === "approved"
          ? <><dt>Trust level</dt><dd>{pairing.trust_level}</dd><dt>Allowlist</dt><dd><Capabilities list={pairing.capability_allowlist} /></dd></>
          : null}
        {pairing.resolution
          ? <><dt>Decision</dt><dd>{pairing.resolution.decision} at {pairing.resolution.resolved_at}{pairing.resolution.reason ? ` (${pairing.resolution.reason})` : ""}{pairing.resolution.resolved_by?.principal ? ` by ${pairing.resolution.resolved_by.principal}` : ""}</dd></>
          : null}
      </dl>
      {Object.keys(metadata).some((key) => !SHOWN_METADATA.has(key)) ? <Json value={metadata} label="Node metadata" /> : null}
      <form onSubmit={(e) => e.preventDefault()}>
        {pairing.status === "pending" ? (
          <>
            <fieldset>
              <legend>Trust level</legend>
              {(["local", "remote"] as const).map((level) => (
                <label key={level} class="inline">
                  <input type="radio" name="trust" value={level} checked={trust === level} onChange={() => setTrust(level)} /> {level}
                </label>
              ))}
            </fieldset>
            <fieldset>
              <legend>Capability allowlist</legend>
              {advertised.length === 0 ? <p class="hint">The node advertised no capability.</p> : null}
              {advertised.map((c, i) => (
                <label key={capabilityLabel(c)} class="inline">
                  <input
                    type="checkbox"
                    checked={selected[i] ?? false}
                    onChange={(e) => {
                      const on = (e.currentTarget as HTMLInputElement).checked
                      setSelected((all) => all.map((v, j) => (j === i ? on : v)))
                    }}
                  />{" "}
                  Allow {capabilityLabel(c)}
                </label>
              ))}
              <label>
                <input type="checkbox" checked={pin} onChange={(e) => setPin((e.currentTarget as HTMLInputElement).checked)} />{" "}
                Only the advertised versions
              </label>
              <label>
                Other capability ids (comma-separated){" "}
                <input value={extra} placeholder="cli.exec, desktop.screenshot" onInput={(e) => setExtra((e.currentTarget as HTMLInputElement).value)} />
              </label>
              <p class="hint">Allowlist sent: {allowlist.length === 0 ? "none (the node can run nothing)" : allowlist.map(capabilityLabel).join(", ")}</p>
            </fieldset>
          </>
        ) : null}
        {pairing.status !== "revoked" ? (
          <ReasonField value={reason} maxLength={2000} onInput={setReason} />
        ) : null}
        <div class="actions">
          {pairing.status === "pending" ? (
            <>
              <button type="button" class="primary" disabled={progress.busy} onClick={() => act("approve")}>Approve</button>
              <button type="button" class="danger" disabled={progress.busy} onClick={() => act("deny")}>Deny</button>
            </>
          ) : null}
          {pairing.status !== "revoked" && !confirmRevoke ? (
            <button type="button" class="danger" disabled={progress.busy} onClick={() => setConfirmRevoke(true)}>Revoke…</button>
          ) : null}
          {confirmRevoke ? (
            <>
              <span>The node's token stops working and its connections close.</span>
              <button type="button" class="danger" disabled={progress.busy} onClick={() => act("revoke")}>Confirm revoke</button>
              <button type="button" onClick={() => setConfirmRevoke(false)}>Keep</button>
            </>
          ) : null}
          <button type="button" onClick={onClose}>Close</button>
        </div>
      </form>
      <ErrorNote error={progress.error} />
    </section>
  )
}
