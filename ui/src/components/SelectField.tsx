/** A labelled select of fixed string options (a list's status filter, a form's role, lane or type). */

/** The select; `onChange` gets the chosen option; each option shows `text(option)` (default: the option itself). */
export const SelectField = <T extends string>({ label, value, options, onChange, text, name, disabled, inline }: {
  label: string
  value: T
  options: ReadonlyArray<T>
  onChange: (value: T) => void
  text?: (option: T) => string
  /** The form field's name, for forms read through `form.elements`. */
  name?: string
  disabled?: boolean
  /** Laid out in the line (`label.inline`) rather than on its own. */
  inline?: boolean
}) => (
  <label class={inline ? "inline" : undefined}>
    {label}{" "}
    <select name={name} value={value} disabled={disabled} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value as T)}>
      {options.map((option) => <option key={option} value={option}>{text ? text(option) : option}</option>)}
    </select>
  </label>
)
