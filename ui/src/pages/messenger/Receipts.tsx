/** An inbox item's delivery receipts, one line each: what was sent, whether it went out, after how many calls. */
import type { DeliveryReceipt } from "./types.ts"

const describe = (receipt: DeliveryReceipt): string => {
  const calls = receipt.attempts === 1 ? "1 call" : `${receipt.attempts} calls`
  switch (receipt.status) {
    case "sent":
      return `${receipt.kind} sent (${calls})`
    case "suppressed":
      return `${receipt.kind} held back (send policy off)`
    default:
      return `${receipt.kind} failed after ${calls}${receipt.error ? `: ${receipt.error}` : ""}`
  }
}

/** The receipts of one item, or a dash when none. */
export const Receipts = ({ receipts }: { receipts: ReadonlyArray<DeliveryReceipt> }) =>
  receipts.length === 0 ? <span class="muted">none</span> : (
    <ul class="receipts">
      {receipts.map((receipt) => (
        <li key={receipt.delivery_id}><span class={`status status-${receipt.status}`}>{describe(receipt)}</span></li>
      ))}
    </ul>
  )
