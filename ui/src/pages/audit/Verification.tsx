/** The outcome of verifying a chain, for a person: valid with the events checked, or where it breaks. */
import type { AuditVerifyResult } from "./types.ts"

/** `result` as one line, `ok` or `error` styled. */
export const Verification = ({ result, label }: { result: AuditVerifyResult; label: string }) =>
  result.valid ? (
    <p class="ok">{label}: valid ({result.checked_count} events checked).</p>
  ) : (
    <p class="error">
      {label}: broken at index {result.broken_at_index ?? "?"} (event {result.broken_at_id ?? "?"}), after {result.checked_count} events checked.
    </p>
  )
