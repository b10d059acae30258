/**
 * Where a node keeps the scoped token of its pairing (gateway-api.md
 * "Pairing (node enrollment)"; reference §4): the gateway sends it once, in
 * the `pairing.approved` event, when an operator approves the node, and the
 * node authenticates with it from then on.
 *
 * The default file store keeps it next to the device identity, in
 * `<identity file>.token` (mode 0600). A store never puts the token in an
 * error message.
 */
import { readFile, stat, unlink } from "node:fs/promises"
import { tightenPrivateFile, writePrivateFile } from "../../services/shared/privateFile.ts"
import type { ScopedTokenStore, StoredScopedToken } from "./scopedTokenStore.ts"

export { memoryScopedTokenStore, type ScopedTokenStore, type StoredScopedToken } from "./scopedTokenStore.ts"

/** A scoped-token file that cannot be used (corrupt, unknown version). The message never contains the token. */
export class ScopedTokenStoreError extends Error {
  override readonly name = "ScopedTokenStoreError"
  readonly path: string

  constructor(path: string, message: string) {
    super(`scoped token file ${path}: ${message}`)
    this.path = path
  }
}

/** Where {@link fileScopedTokenStore} keeps the token of the device whose identity is at `identityPath`: `<identityPath>.token`. */
export const scopedTokenPathFor = (identityPath: string): string => `${identityPath}.token`

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === "ENOENT"

const parseStored = (path: string, text: string): StoredScopedToken => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    // JSON.parse's message quotes the text: no cause, so the token cannot leak through it.
    throw new ScopedTokenStoreError(path, "not valid JSON (corrupt file?)")
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw new ScopedTokenStoreError(path, "expected a JSON object")
  }
  const record = parsed as Record<string, unknown>
  if (record["v"] !== 1) throw new ScopedTokenStoreError(path, "unsupported or missing format version v (expected 1)")
  for (const field of ["scoped_token", "device_id", "gateway"] as const) {
    if (typeof record[field] !== "string" || record[field] === "") {
      throw new ScopedTokenStoreError(path, `${field} must be a non-empty string`)
    }
  }
  const pairingId = record["pairing_id"]
  return {
    scoped_token: record["scoped_token"] as string,
    device_id: record["device_id"] as string,
    gateway: record["gateway"] as string,
    ...(typeof pairingId === "number" ? { pairing_id: pairingId } : {})
  }
}

/**
 * A store in the JSON file `path`: `{v: 1, scoped_token, device_id, gateway, pairing_id?, saved_at}`, written
 * atomically (a 0600 temporary file, flushed, renamed over it: services/shared/privateFile.ts; the directory, when
 * created, gets 0700). A file readable
 * by group or others is reset to 0600 when loaded. `clear` deletes the file.
 *
 * `load` rejects with {@link ScopedTokenStoreError} for a corrupt file; file-system errors propagate as is.
 */
export const fileScopedTokenStore = (path: string): ScopedTokenStore => ({
  load: async () => {
    let text: string
    try {
      text = await readFile(path, "utf8")
    } catch (error) {
      if (isMissing(error)) return undefined
      throw error
    }
    const stored = parseStored(path, text)
    await tightenPrivateFile(path, (await stat(path)).mode)
    return stored
  },
  save: async (token) => {
    const body = { v: 1, ...token, saved_at: new Date().toISOString() }
    await writePrivateFile(path, JSON.stringify(body, null, 2) + "\n", "replace")
  },
  clear: async () => {
    try {
      await unlink(path)
    } catch (error) {
      if (!isMissing(error)) throw error
    }
  }
})
