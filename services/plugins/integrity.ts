/**
 * A plugin's lock file and the digest it pins (issue 26 §1; docs/plugins.md
 * "Lock file and integrity").
 *
 * `plugin.lock.json` (format `svc.plugin.lock.v1`): `{format, recorded_at,
 * source?, pinned_version, integrity_sha256}`. The digest covers every file
 * of the plugin's directory except the lock file itself:
 *
 * 1. walk the directory recursively; each entry's path is relative to it,
 *    with `/` separators;
 * 2. a regular file is listed as `<sha256 hex of its bytes>  <path>`, a
 *    symbolic link as `link:<sha256 hex of its target text>  <path>` (its
 *    target is not followed), directories only through their files; a link
 *    whose target lies outside the directory is refused (what it points at
 *    would not be pinned by the digest);
 * 3. the lines are sorted by path (code-unit order), each ends with `\n`;
 * 4. `integrity_sha256` is the SHA-256 hex of that listing.
 *
 * So the digest changes when any file's bytes, name or presence changes, and
 * not with timestamps, modes or the order the file system lists entries in.
 *
 * @module
 */
import { lstat, readdir, readFile, readlink } from "node:fs/promises"
import { dirname, isAbsolute, join, relative as relativePath, resolve, sep } from "node:path"
import { Effect, Result, Schema } from "effect"
import { sha256Hex } from "../shared/sha256.ts"

/** The lock file's name inside the plugin directory. */
export const LOCK_FILE = "plugin.lock.json"

/** The lock file's format tag. */
export const LOCK_FORMAT = "svc.plugin.lock.v1"

/** Most files a plugin directory may hold (the digest reads them all). */
export const MAX_PLUGIN_FILES = 10_000

/** Most bytes a plugin directory may hold in all (64 MiB). */
export const MAX_PLUGIN_BYTES = 64 * 1024 * 1024

/** `plugin.lock.json`. */
export const PluginLock = Schema.Struct({
  format: Schema.Literal(LOCK_FORMAT),
  recorded_at: Schema.String,
  source: Schema.optionalKey(Schema.String),
  pinned_version: Schema.String,
  integrity_sha256: Schema.String.check(Schema.isPattern(/^[0-9a-f]{64}$/, { expected: "64 lowercase hex characters" }))
})
export type PluginLock = typeof PluginLock.Type

const decodeLock = Schema.decodeUnknownResult(Schema.fromJsonString(PluginLock), { onExcessProperty: "error" })

const message = (error: unknown): string =>
  (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error))

/** The listing the digest is taken over (module documentation), or why the directory cannot be read. */
export const integrityListing = (dir: string): Effect.Effect<string, string> =>
  Effect.tryPromise({
    try: async () => {
      const lines: Array<readonly [string, string]> = []
      let bytes = 0
      const walk = async (relative: string): Promise<void> => {
        const names = await readdir(join(dir, relative))
        for (const name of names) {
          const path = relative === "" ? name : `${relative}/${name}`
          if (path === LOCK_FILE) continue
          const info = await lstat(join(dir, path))
          if (info.isDirectory()) {
            await walk(path)
          } else if (info.isSymbolicLink()) {
            const target = await readlink(join(dir, path))
            // Resolved as written (every link inside is checked too): a target outside is code the lock does not pin.
            const inside = relativePath(resolve(dir), resolve(dirname(resolve(dir, path)), target))
            if (inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside)) {
              throw new Error(`${path} is a symbolic link to outside the plugin's directory (what it points at would not be pinned by the lock)`)
            }
            lines.push([path, `link:${sha256Hex(target)}`])
          } else if (info.isFile()) {
            bytes += info.size
            if (bytes > MAX_PLUGIN_BYTES) throw new Error(`the plugin's files exceed ${MAX_PLUGIN_BYTES} bytes`)
            lines.push([path, sha256Hex(await readFile(join(dir, path)))])
          }
          if (lines.length > MAX_PLUGIN_FILES) throw new Error(`the plugin has more than ${MAX_PLUGIN_FILES} files`)
        }
      }
      await walk("")
      lines.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      return lines.map(([path, digest]) => `${digest}  ${path}\n`).join("")
    },
    catch: (error) => `cannot read the plugin's files (${message(error)})`
  })

/** The plugin directory's `integrity_sha256`. */
export const integrityOf = (dir: string): Effect.Effect<string, string> => Effect.map(integrityListing(dir), sha256Hex)

/** What the lock file says: absent, unreadable or invalid (why), or the lock. */
export type LockRead =
  | { readonly _tag: "Absent" }
  | { readonly _tag: "Invalid"; readonly message: string }
  | { readonly _tag: "Present"; readonly lock: PluginLock }

/** Reads `<dir>/plugin.lock.json`. */
export const readLock = (dir: string): Effect.Effect<LockRead> =>
  Effect.promise(async (): Promise<LockRead> => {
    let text: string
    try {
      text = await readFile(join(dir, LOCK_FILE), "utf8")
    } catch (error) {
      return message(error) === "ENOENT" ? { _tag: "Absent" } : { _tag: "Invalid", message: `cannot read ${LOCK_FILE} (${message(error)})` }
    }
    const decoded = decodeLock(text)
    return Result.isSuccess(decoded)
      ? { _tag: "Present", lock: decoded.success }
      : { _tag: "Invalid", message: `${LOCK_FILE} is not a ${LOCK_FORMAT} lock: ${String(decoded.failure.message).split("\n")[0]}` }
  })

/** The lock of `dir` as of now: its digest, the manifest's version, and `source` when given. */
export const makeLock = (dir: string, version: string, recordedAt: string, source?: string): Effect.Effect<PluginLock, string> =>
  Effect.map(integrityOf(dir), (integrity_sha256) => ({
    format: LOCK_FORMAT,
    recorded_at: recordedAt,
    ...(source === undefined ? {} : { source }),
    pinned_version: version,
    integrity_sha256
  }))
