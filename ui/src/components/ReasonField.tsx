/** The optional reason an operator gives with a decision (deny, revoke, disable, cancel, save). */

/** A labelled text field; `onInput` gets the raw text (callers trim it and omit an empty one). */
export const ReasonField = ({ value, maxLength, onInput, label = "Reason (optional)" }: {
  value: string
  /** The gateway's limit for this reason, in characters. */
  maxLength: number
  onInput: (value: string) => void
  label?: string
}) => (
  <label>
    {label}{" "}
    <input value={value} maxLength={maxLength} onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)} />
  </label>
)
