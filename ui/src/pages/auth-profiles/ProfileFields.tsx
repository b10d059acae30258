/**
 * The fields a profile's create and edit forms share: its type, the secret
 * handles that type takes (chosen among the agent's stored secrets:
 * `api_key` an API key; `oauth` an access token and optionally a refresh
 * token; `token` an access token), and labels written `key=value, key=value`.
 */
import { SelectField } from "../../components/SelectField.tsx"
import type { AuthProfileSecretHandles, AuthProfileType, SecretHandle } from "./types.ts"

/** A handle field of a profile. */
export type HandleField = keyof AuthProfileSecretHandles

/** The handle fields each type takes. */
export const FIELDS: Record<AuthProfileType, ReadonlyArray<{ name: HandleField; optional: boolean }>> = {
  api_key: [{ name: "api_key", optional: false }],
  oauth: [{ name: "access_token", optional: false }, { name: "refresh_token", optional: true }],
  token: [{ name: "access_token", optional: false }]
}

/** The chosen handles of the fields `type` takes, for the wire. */
export const handlesFor = (type: AuthProfileType, chosen: Partial<Record<HandleField, string>>): Record<string, string> => {
  const handles: Record<string, string> = {}
  for (const { name } of FIELDS[type]) {
    const id = chosen[name]
    if (id) handles[name] = id
  }
  return handles
}

/** `key=value, key=value` as labels; a pair without `=` is an error naming it. */
export const parseLabels = (text: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  for (const pair of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const at = pair.indexOf("=")
    if (at <= 0) throw new Error(`labels: "${pair}" is not key=value`)
    labels[pair.slice(0, at).trim()] = pair.slice(at + 1).trim()
  }
  return labels
}

/** Labels as `key=value, key=value`. */
export const formatLabels = (labels: Readonly<Record<string, string>> | undefined): string =>
  Object.entries(labels ?? {}).map(([k, v]) => `${k}=${v}`).join(", ")

/** The type select and one handle select per field of the type. */
export const TypeAndHandles = ({ type, chosen, handles, onType, onChosen }: {
  type: AuthProfileType
  chosen: Partial<Record<HandleField, string>>
  handles: ReadonlyArray<SecretHandle>
  onType: (type: AuthProfileType) => void
  onChosen: (chosen: Partial<Record<HandleField, string>>) => void
}) => (
  <>
    <SelectField label="Type" value={type} options={Object.keys(FIELDS) as Array<AuthProfileType>} onChange={onType} />
    {FIELDS[type].map(({ name, optional }) => (
      <label key={name}>
        Secret for {name}{optional ? " (optional)" : ""}{" "}
        <select value={chosen[name] ?? ""} required={!optional} onChange={(e) => onChosen({ ...chosen, [name]: (e.currentTarget as HTMLSelectElement).value })}>
          <option value="">{optional ? "none" : "choose a secret"}</option>
          {chosen[name] && !handles.some((h) => h.handle_id === chosen[name])
            ? <option value={chosen[name]}>{chosen[name]} (not an active secret)</option>
            : null}
          {handles.map((h) => <option key={h.handle_id} value={h.handle_id}>{h.scope} ({h.handle_id})</option>)}
        </select>
      </label>
    ))}
  </>
)
