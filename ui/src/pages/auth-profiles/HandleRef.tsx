/**
 * A secret handle a profile names, with what the agent's handle list says
 * about it: its scope and when that value was stored (a rotation gives a new
 * handle, so the date is the current value's), or that it is not an active
 * handle of the agent (revoked, or unknown).
 */
import type { SecretHandle } from "./types.ts"

/** `field: handle` and its scope and storage time. */
export const HandleRef = ({ field, id, handles }: { field: string; id: string; handles: ReadonlyArray<SecretHandle> | undefined }) => {
  const handle = handles?.find((h) => h.handle_id === id)
  return (
    <li>
      {field}: <code>{id}</code>{" "}
      {handles === undefined ? null : handle
        ? <span class="hint">(secret {handle.scope}, stored {handle.created_at})</span>
        : <span class="error">(not an active secret of this agent)</span>}
    </li>
  )
}
