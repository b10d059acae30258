/**
 * Pairings: the nodes asking to be trusted (pending first) with their
 * identity and advertised capabilities, and the resolved ones by status; a
 * review panel approves with a trust level and a capability allowlist,
 * denies, or revokes (Review.tsx). Live: `pairing.requested` and
 * `pairing.resolved` reload the list. Every action needs operator.pairing,
 * the scope of the page itself.
 */
import { useState } from "preact/hooks"
import { call } from "../../app/api.ts"
import { useResource } from "../../app/useResource.ts"
import { Capabilities } from "../../components/Capabilities.tsx"
import { ErrorNote } from "../../components/ErrorNote.tsx"
import { usePager } from "../../components/Pager.tsx"
import { SelectField } from "../../components/SelectField.tsx"
import { Review } from "./Review.tsx"
import type { Pairing, PairingStatus } from "./types.ts"

type Filter = PairingStatus | "all"
const FILTERS: ReadonlyArray<Filter> = ["pending", "approved", "denied", "revoked", "all"]

/** What a row says about a pairing's state: its status, trust level and decision. */
const stateOf = (pairing: Pairing): string =>
  pairing.status === "pending"
    ? "pending"
    : `${pairing.status}${pairing.trust_level ? ` (${pairing.trust_level})` : ""}${pairing.resolution?.reason ? `: ${pairing.resolution.reason}` : ""}`

/** The pairings page. */
export default function PairingsPage() {
  const [filter, setFilter] = useState<Filter>("pending")
  const [selected, setSelected] = useState<number | undefined>(undefined)
  /** The pairing of the last action, shown until the list holds it (it may leave the filter). */
  const [decided, setDecided] = useState<Pairing | undefined>(undefined)
  const list = useResource(
    () => call((c) => c.pairing.list({ query: filter === "all" ? {} : { status: filter } })),
    { events: ["pairing.requested", "pairing.resolved"] },
    [filter]
  )
  const pairings = list.data?.pairings ?? []
  const { slice, controls } = usePager(pairings)
  const current = pairings.find((p) => p.pairing_id === selected) ??
    (decided?.pairing_id === selected ? decided : undefined)
  const label = (p: Pairing) => p.node.label ?? p.node.node_id

  return (
    <section aria-labelledby="pairings-title">
      <h1 id="pairings-title">Pairings</h1>
      <div class="toolbar">
        <SelectField label="Status" value={filter} options={FILTERS} onChange={setFilter} />
        <span aria-live="polite" class="count">{list.data ? `${pairings.length} ${filter === "all" ? "pairings" : filter}` : ""}</span>
      </div>
      {decided ? <p role="status" class="ok">Pairing {decided.pairing_id} ({label(decided)}) {decided.status}.</p> : null}
      <ErrorNote error={list.error} />
      {current ? (
        <Review
          pairing={current}
          onClose={() => setSelected(undefined)}
          onDecided={(pairing) => {
            setDecided(pairing)
            list.reload()
          }}
        />
      ) : null}
      {list.data && pairings.length === 0
        ? <p class="empty">{filter === "pending" ? "No node is waiting for approval. A node that connects and is not paired yet shows here." : `No ${filter === "all" ? "" : `${filter} `}pairings.`}</p>
        : null}
      {slice.length > 0 ? (
        <table class="list" aria-label={`${filter} pairings`}>
          <thead>
            <tr>
              <th scope="col">#</th><th scope="col">Node</th><th scope="col">Advertised capabilities</th>
              <th scope="col">State</th><th scope="col">Requested</th><th scope="col"><span class="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {slice.map((pairing) => (
              <tr key={pairing.pairing_id} aria-selected={pairing.pairing_id === selected}>
                <td>{pairing.pairing_id}</td>
                <td>{pairing.node.label ? <>{pairing.node.label}<br /></> : null}<code class="node-id">{pairing.node.node_id}</code></td>
                <td><Capabilities list={pairing.node.capabilities} /></td>
                <td>{stateOf(pairing)}</td>
                <td>{pairing.requested_at}</td>
                <td>
                  <button type="button" onClick={() => setSelected(pairing.pairing_id)}>
                    {pairing.status === "pending" ? "Review" : "Details"}
                    <span class="sr-only"> pairing {pairing.pairing_id}</span>
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {controls}
    </section>
  )
}
