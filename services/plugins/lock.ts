/**
 * Recording a plugin's lock file (`svc-gateway plugins lock <id>`; issue 26
 * §1; docs/plugins.md "Lock file and integrity"): the plugin directory
 * `$SVC_HOME/plugins/<id>` must be safe and hold a valid manifest with that
 * id; its digest (integrity.ts) and the manifest's version are written to
 * `plugin.lock.json` (replacing any earlier lock, atomically).
 *
 * @module
 */
import { join } from "node:path"
import { Clock, Effect, Result } from "effect"
import { isoTime } from "../shared/time.ts"
import { writePrivateFile } from "../shared/privateFile.ts"
import { readManifest, unsafeDirectory } from "./discovery.ts"
import { LOCK_FILE, makeLock, type PluginLock } from "./integrity.ts"
import { PLUGIN_ID_PATTERN } from "./manifest.ts"

/** Writes the lock of plugin `id` under `pluginsRoot`; answers the lock and its path, or one line saying why not. */
export const lockPlugin = Effect.fn("Plugins.lock")(function*(pluginsRoot: string, id: string, source?: string) {
  if (!PLUGIN_ID_PATTERN.test(id)) return yield* Effect.fail(`invalid plugin id "${id}": lowercase letters, digits, - and _, at most 32`)
  const dir = join(pluginsRoot, id)
  const unsafe = yield* Effect.promise(() => unsafeDirectory(dir).catch((error: NodeJS.ErrnoException) => `cannot read ${dir} (${error.code ?? error.message})`))
  if (unsafe !== undefined) return yield* Effect.fail(`refused: ${unsafe}`)
  const read = yield* Effect.promise(() => readManifest(dir))
  if (Result.isFailure(read)) {
    const { file, line, message } = read.failure
    return yield* Effect.fail(`${file ?? dir}${line === undefined ? "" : `:${line}`}: ${message}`)
  }
  const { manifest } = read.success
  if (manifest.id !== id) return yield* Effect.fail(`${read.success.manifestFile}: id "${manifest.id}" must be the directory's name "${id}"`)
  const lock: PluginLock = yield* makeLock(dir, manifest.version, isoTime(yield* Clock.currentTimeMillis), source)
  const path = join(dir, LOCK_FILE)
  yield* Effect.tryPromise({
    try: () => writePrivateFile(path, `${JSON.stringify(lock, null, 2)}\n`, "replace"),
    catch: (error) => `cannot write ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`
  })
  return { lock, path }
})
