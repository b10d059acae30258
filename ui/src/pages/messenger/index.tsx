/**
 * Messenger inbox: the updates the messenger ingress received (`GET
 * /ingress/messenger/inbox`), newest first, with the counts by status and of
 * deduplicated receipts, each update's agent, status, reply and delivery
 * receipts. It reloads on `delivery.receipt`, every 5 s (a turn ends without
 * an event of its own when nothing is delivered) and with its Reload button.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { Receipts } from "./Receipts.tsx"
import type { InboxStatus } from "./types.ts"

const FILTERS = ["all", "queued", "running", "processed", "interrupted", "failed"] as const
type Filter = (typeof FILTERS)[number]

/** The messenger inbox page. */
export default function MessengerPage() {
  const [filter, setFilter] = useState<Filter>("all")
  const inbox = useResource(
    () => call((c) => c.messenger.inbox({ query: filter === "all" ? { limit: 200 } : { status: filter as InboxStatus, limit: 200 } })),
    { events: ["delivery.receipt"], refreshMs: 5_000 },
    [filter]
  )
  const data = inbox.data
  return (
    <section aria-labelledby="messenger-title">
      <h1 id="messenger-title">Messenger inbox</h1>
      <div class="toolbar">
        <SelectField label="Status" value={filter} options={FILTERS} onChange={setFilter} inline />
        <button type="button" onClick={inbox.reload}>Reload</button>
      </div>
      <ErrorNote error={inbox.error} />
      {data ? (
        <dl class="facts" aria-label="Inbox counts">
          <dt>Queued</dt><dd>{data.counts.queued}</dd>
          <dt>Running</dt><dd>{data.counts.running}</dd>
          <dt>Processed</dt><dd>{data.counts.processed}</dd>
          <dt>Interrupted</dt><dd>{data.counts.interrupted}</dd>
          <dt>Failed</dt><dd>{data.counts.failed}</dd>
          <dt>Deduplicated</dt><dd>{data.counts.deduplicated}</dd>
        </dl>
      ) : inbox.loading ? <p aria-busy="true">Loading…</p> : null}
      {data && data.items.length === 0 ? (
        <p class="empty">{filter === "all"
          ? "No messenger update yet. The messenger posts them to POST /ingress/messenger (docs/messenger.md)."
          : `No update is ${filter}.`}</p>
      ) : null}
      {data && data.items.length > 0 ? (
        <table class="list" aria-label="Messenger updates">
          <thead>
            <tr>
              <th scope="col">Update</th><th scope="col">Chat</th><th scope="col">Agent</th><th scope="col">Status</th>
              <th scope="col">Message</th><th scope="col">Reply</th><th scope="col">Duplicates</th><th scope="col">Deliveries</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((item) => (
              <tr key={item.inbox_id}>
                <td>{item.inbox_id} <span class="muted">(message {item.message_id})</span></td>
                <td><code>{item.chat_id}</code></td>
                <td>{item.agent_id}</td>
                <td><span class={`status status-${item.status}`}>{item.status}</span>{item.error ? <div class="muted">{item.error}</div> : null}</td>
                <td>{item.text}</td>
                <td>{item.reply ?? ""}</td>
                <td>{item.duplicates}</td>
                <td><Receipts receipts={item.receipts} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  )
}
