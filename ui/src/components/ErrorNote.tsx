/** A failed call, explained (a 403 says which scope is missing instead of failing silently). */
import { explain } from "../app/api.ts"

/** Shows `error` as an alert; nothing when there is none. */
export const ErrorNote = ({ error }: { error: unknown }) =>
  error === undefined || error === null ? null : <p role="alert" class="error">{explain(error)}</p>
