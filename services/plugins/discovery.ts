/**
 * Finding the plugins of `$SVC_HOME/plugins` (issue 26 §1; docs/plugins.md
 * "Layout"): each subdirectory (names sorted; names starting with `.`
 * skipped) is one plugin, checked in this order, the first problem being its
 * error entry (never a crash, never skipped silently):
 *
 * 1. the directory is a real directory (not a symbolic link), owned by the
 *    gateway's user and not world-writable (`unsafe_directory`); the same
 *    holds for `$SVC_HOME/plugins` itself;
 * 2. it holds `plugin.yml`, `plugin.yaml` or `plugin.json` (`no_manifest`),
 *    which decodes strictly (`invalid_manifest`, with the file and line), and
 *    whose `id` is the directory's name (`id_mismatch`);
 * 3. `plugin.lock.json`: absent → `unlocked` (loaded anyway only with
 *    `SVC_PLUGINS_ALLOW_UNLOCKED=1`); unreadable → `invalid_lock`; a digest
 *    or version that does not match → `integrity_mismatch`;
 * 4. its `entry`, when it has one, is a file (`load_failed`).
 *
 * @module
 */
import { lstat, readdir, readFile } from "node:fs/promises"
import { join } from "node:path"
import { Effect, Result } from "effect"
import { integrityOf, LOCK_FILE, type PluginLock, readLock } from "./integrity.ts"
import { MANIFEST_FILES, MAX_MANIFEST_BYTES, parseManifest, type PluginManifest } from "./manifest.ts"
import type { PluginLoadError } from "./schema.ts"

/** The plugins directory under a gateway home. */
export const pluginsDirectory = (home: string): string => join(home, "plugins")

/** A plugin directory that passed every check: ready to start. */
export interface FoundPlugin {
  readonly manifest: PluginManifest
  readonly dir: string
  readonly manifestFile: string
  readonly lock: PluginLock | undefined
  readonly integrity: string
}

/** What a scan found. */
export interface Discovery {
  readonly found: ReadonlyArray<FoundPlugin>
  readonly errors: ReadonlyArray<PluginLoadError>
}

const code = (error: unknown): string => (error as NodeJS.ErrnoException | undefined)?.code ?? String(error)

/** Why `path` (a directory) is unsafe to load code from, or `undefined`. */
export const unsafeDirectory = async (path: string): Promise<string | undefined> => {
  const info = await lstat(path)
  if (info.isSymbolicLink()) return `${path} is a symbolic link (plugin directories must be real directories)`
  if (!info.isDirectory()) return `${path} is not a directory`
  if ((info.mode & 0o002) !== 0) return `${path} is world-writable (mode ${(info.mode & 0o777).toString(8)}); run chmod o-w on it`
  const uid = typeof process.getuid === "function" ? process.getuid() : undefined
  if (uid !== undefined && info.uid !== uid) return `${path} is owned by uid ${info.uid}, not the gateway's user (uid ${uid})`
  return undefined
}

/** Finds and decodes the manifest of the plugin directory `dir` (`no_manifest`, `invalid_manifest`). */
export const readManifest = async (
  dir: string
): Promise<Result.Result<{ readonly manifest: PluginManifest; readonly manifestFile: string }, PluginLoadError>> => {
  const refuse = (error: string, message: string, extra: Partial<PluginLoadError> = {}) =>
    Result.fail({ error, message, source_dir: dir, ...extra } as PluginLoadError)
  let manifestFile: string | undefined
  for (const file of MANIFEST_FILES) {
    const found = await lstat(join(dir, file)).then((i) => i.isFile(), () => false)
    if (found) {
      manifestFile = join(dir, file)
      break
    }
  }
  if (manifestFile === undefined) return refuse("no_manifest", `no ${MANIFEST_FILES.join(", ")} in the directory`)
  const size = (await lstat(manifestFile)).size
  if (size > MAX_MANIFEST_BYTES) return refuse("invalid_manifest", `larger than ${MAX_MANIFEST_BYTES} bytes`, { file: manifestFile })
  const parsed = parseManifest(await readFile(manifestFile, "utf8"))
  if (Result.isFailure(parsed)) {
    const { line, message } = parsed.failure
    return refuse("invalid_manifest", message, { file: manifestFile, ...(line === undefined ? {} : { line }) })
  }
  return Result.succeed({ manifest: parsed.success, manifestFile })
}

/** Checks one plugin directory (module documentation, steps 1–4). */
const checkPlugin = async (dir: string, name: string, allowUnlocked: boolean): Promise<Result.Result<FoundPlugin, PluginLoadError>> => {
  const refuse = (error: string, message: string, extra: Partial<PluginLoadError> = {}) =>
    Result.fail({ error, message, source_dir: dir, ...extra } as PluginLoadError)
  const unsafe = await unsafeDirectory(dir)
  if (unsafe !== undefined) return refuse("unsafe_directory", `refused: ${unsafe}`)
  const read = await readManifest(dir)
  if (Result.isFailure(read)) return Result.fail(read.failure)
  const { manifest, manifestFile } = read.success
  const ids = { plugin_id: manifest.id, file: manifestFile }
  if (manifest.id !== name) return refuse("id_mismatch", `id "${manifest.id}" must be the directory's name "${name}"`, ids)
  const integrity = await Effect.runPromise(Effect.result(integrityOf(dir)))
  if (Result.isFailure(integrity)) return refuse("load_failed", integrity.failure, ids)
  const lockFile = join(dir, LOCK_FILE)
  const lock = await Effect.runPromise(readLock(dir))
  if (lock._tag === "Invalid") return refuse("invalid_lock", lock.message, { ...ids, file: lockFile })
  if (lock._tag === "Absent" && !allowUnlocked) {
    return refuse("unlocked", `no ${LOCK_FILE}: record one with \`svc-gateway plugins lock ${manifest.id}\` (or set SVC_PLUGINS_ALLOW_UNLOCKED=1)`, ids)
  }
  if (lock._tag === "Present") {
    if (lock.lock.integrity_sha256 !== integrity.success) {
      return refuse(
        "integrity_mismatch",
        `the plugin's files changed since ${LOCK_FILE} was recorded (${lock.lock.recorded_at}): pinned ${lock.lock.integrity_sha256}, found ${integrity.success}`,
        { ...ids, file: lockFile }
      )
    }
    if (lock.lock.pinned_version !== manifest.version) {
      return refuse("integrity_mismatch", `${LOCK_FILE} pins version ${lock.lock.pinned_version}, the manifest says ${manifest.version}`, {
        ...ids,
        file: lockFile
      })
    }
  }
  if (manifest.entry !== undefined) {
    const entryIsFile = await lstat(join(dir, manifest.entry)).then((i) => i.isFile(), () => false)
    if (!entryIsFile) return refuse("load_failed", `entry ${manifest.entry} is not a file in the plugin's directory`, ids)
  }
  return Result.succeed({ manifest, dir, manifestFile, lock: lock._tag === "Present" ? lock.lock : undefined, integrity: integrity.success })
}

/** Scans `root` (`$SVC_HOME/plugins`; absent means no plugins). */
export const discover = (root: string, allowUnlocked: boolean): Effect.Effect<Discovery> =>
  Effect.promise(async (): Promise<Discovery> => {
    let names: Array<string>
    try {
      names = (await readdir(root)).filter((n) => !n.startsWith(".")).sort()
    } catch (error) {
      return code(error) === "ENOENT"
        ? { found: [], errors: [] }
        : { found: [], errors: [{ error: "load_failed", message: `cannot read ${root} (${code(error)})`, source_dir: root }] }
    }
    const rootProblem = await unsafeDirectory(root).catch((error) => `cannot read ${root} (${code(error)})`)
    if (rootProblem !== undefined) return { found: [], errors: [{ error: "unsafe_directory", message: `refused: ${rootProblem}`, source_dir: root }] }
    const found: Array<FoundPlugin> = []
    const errors: Array<PluginLoadError> = []
    for (const name of names) {
      const dir = join(root, name)
      // A plain file beside the plugins (a README) is not a plugin.
      if (await lstat(dir).then((i) => i.isFile(), () => false)) continue
      const checked = await checkPlugin(dir, name, allowUnlocked).catch((error) =>
        Result.fail<PluginLoadError>({ error: "load_failed", message: `cannot read the directory (${code(error)})`, source_dir: dir })
      )
      if (Result.isSuccess(checked)) found.push(checked.success)
      else errors.push(checked.failure)
    }
    return { found, errors }
  })
