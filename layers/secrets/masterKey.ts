/**
 * The `db` secret provider's master key file (docs/secrets.md "The master
 * key"): 32 random bytes written as 64 hex characters (plus a newline) with
 * mode 0600, created with `O_EXCL` so two starting gateways never overwrite
 * each other's key. Reading also accepts the raw 32 bytes or their base64.
 *
 * @module
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { chmodSync, mkdirSync, openSync, readFileSync, statSync, writeSync, closeSync } from "node:fs"
import { dirname } from "node:path"
import { KEY_BYTES } from "./crypto.ts"
import { SecretsKeyUnreadable } from "./SecretProvider.ts"

/** A key file's content as a key, or `undefined` when it is not one. */
export const parseKey = (content: Buffer): Uint8Array | undefined => {
  const text = content.toString("utf8").trim()
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, "hex")
  if (/^[A-Za-z0-9+/]{43}=$/.test(text)) return Buffer.from(text, "base64")
  if (content.length === KEY_BYTES) return new Uint8Array(content)
  return undefined
}

const code = (error: unknown): string | undefined => (error as { code?: string }).code

/** What is at `path`: the key, `"missing"`, or a failure naming the file and the problem. */
export const readKeyFile = (path: string): Effect.Effect<Uint8Array | "missing", SecretsKeyUnreadable> =>
  Effect.suspend((): Effect.Effect<Uint8Array | "missing", SecretsKeyUnreadable> => {
    let content: Buffer
    try {
      content = readFileSync(path)
    } catch (error) {
      if (code(error) === "ENOENT") return Effect.succeed("missing" as const)
      return Effect.fail(new SecretsKeyUnreadable({ message: `secrets master key ${path}: cannot read the file (${code(error) ?? "error"})`, path }))
    }
    const key = parseKey(content)
    if (key === undefined) {
      return Effect.fail(new SecretsKeyUnreadable({
        message: `secrets master key ${path}: not a 32-byte key (expected 64 hex characters, base64 of 32 bytes, or 32 raw bytes)`,
        path
      }))
    }
    return Effect.gen(function*() {
      const mode = yield* Effect.sync(() => statSync(path).mode)
      if ((mode & 0o077) !== 0) {
        yield* Effect.logWarning("secrets master key file is readable by other users; restrict it with chmod 600").pipe(
          Effect.annotateLogs({ path })
        )
      }
      return key
    })
  })

/**
 * Creates a new key file at `path` (its directory with mode 0700 if missing;
 * the file with mode 0600 and `O_EXCL`). If another process created it
 * first, its key is read instead.
 */
export const generateKeyFile = (path: string): Effect.Effect<Uint8Array, SecretsKeyUnreadable> =>
  Effect.suspend((): Effect.Effect<Uint8Array, SecretsKeyUnreadable> => {
    const key = randomBytes(KEY_BYTES)
    try {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
      const fd = openSync(path, "wx", 0o600)
      try {
        writeSync(fd, `${key.toString("hex")}\n`)
      } finally {
        closeSync(fd)
      }
      chmodSync(path, 0o600)
      return Effect.as(Effect.logInfo("generated the secrets master key; back it up").pipe(Effect.annotateLogs({ path })), new Uint8Array(key))
    } catch (error) {
      if (code(error) === "EEXIST") {
        return Effect.flatMap(readKeyFile(path), (read) =>
          read === "missing"
            ? Effect.fail(new SecretsKeyUnreadable({ message: `secrets master key ${path}: disappeared while starting`, path }))
            : Effect.succeed(read))
      }
      return Effect.fail(new SecretsKeyUnreadable({ message: `secrets master key ${path}: cannot create the file (${code(error) ?? "error"})`, path }))
    }
  })
