/**
 * The `db` secret provider's master key file (docs/secrets.md "The master
 * key"): 32 random bytes written as 64 hex characters (plus a newline) with
 * mode 0600, written whole or not at all and never over an existing file
 * (services/shared/privateFile.ts, create mode), so two starting gateways
 * never overwrite each other's key and a crash never leaves half a key.
 * Reading also accepts the raw 32 bytes or their base64.
 *
 * A zero-length key file is what an interrupted write of an older version
 * left: {@link readKeyFile} reports it as `"empty"`, which the `db` provider
 * treats like a missing file (a new key replaces it, unless sealed values
 * exist: then the start is refused).
 *
 * @module
 */
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { readFileSync, rmSync, statSync } from "node:fs"
import { writePrivateFile } from "../../services/shared/privateFile.ts"
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

/** What is at `path`: the key, `"missing"`, `"empty"` (zero length), or a failure naming the file and the problem. */
export const readKeyFile = (path: string): Effect.Effect<Uint8Array | "missing" | "empty", SecretsKeyUnreadable> =>
  Effect.suspend((): Effect.Effect<Uint8Array | "missing" | "empty", SecretsKeyUnreadable> => {
    let content: Buffer
    try {
      content = readFileSync(path)
    } catch (error) {
      if (code(error) === "ENOENT") return Effect.succeed("missing" as const)
      return Effect.fail(new SecretsKeyUnreadable({ message: `secrets master key ${path}: cannot read the file (${code(error) ?? "error"})`, path }))
    }
    if (content.length === 0) return Effect.succeed("empty" as const)
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
 * the file with mode 0600, atomically, never over an existing file). A
 * zero-length file there is replaced. If another process created the key
 * first, its key is read instead.
 */
export const generateKeyFile = (path: string): Effect.Effect<Uint8Array, SecretsKeyUnreadable> =>
  Effect.gen(function*() {
    const key = randomBytes(KEY_BYTES)
    const cannotCreate = (error: unknown) =>
      new SecretsKeyUnreadable({ message: `secrets master key ${path}: cannot create the file (${code(error) ?? "error"})`, path })
    if ((yield* readKeyFile(path)) === "empty") {
      yield* Effect.logWarning("the secrets master key file is empty (left by an interrupted start); generating a new key").pipe(
        Effect.annotateLogs({ path })
      )
      yield* Effect.try({ try: () => rmSync(path, { force: true }), catch: cannotCreate })
    }
    const written = yield* Effect.tryPromise({ try: () => writePrivateFile(path, `${key.toString("hex")}\n`, "create"), catch: cannotCreate })
    if (written) {
      yield* Effect.logInfo("generated the secrets master key; back it up").pipe(Effect.annotateLogs({ path }))
      return new Uint8Array(key)
    }
    const read = yield* readKeyFile(path)
    if (read === "missing" || read === "empty") {
      return yield* new SecretsKeyUnreadable({ message: `secrets master key ${path}: disappeared while starting`, path })
    }
    return read
  })
